"""Turn what the user points at (CUDA C++, PTX, cubin, fatbin, later Python kernels) into Artifacts."""
