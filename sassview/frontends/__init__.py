"""Turn what the user points at (CUDA C++, PTX, cubin, fatbin) into Artifacts."""
