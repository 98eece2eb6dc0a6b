// The last step of var and std (launcher: reductions.py, _var_finish): each output is
// the float64 sum of squared deviations divided by the degrees of freedom, its square
// root for std, rounded once to the output type. Double division and sqrt are the
// IEEE operations (correctly rounded), so the bits are those of the three array
// operations this replaces (ss / dof, sqrt, astype), in one pass over the outputs.

template <typename T, bool ROOT>
__global__ void __launch_bounds__(256)
xs_var_finish(const double* __restrict__ ss, T* __restrict__ out, long long n, double dof)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        double v = ss[i] / dof;
        if (ROOT) v = sqrt(v);
        out[i] = (T)v;
    }
}
