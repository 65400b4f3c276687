"""Generated kernels: written only by `symdp codegen`; do not edit."""
