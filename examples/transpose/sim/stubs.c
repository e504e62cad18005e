/* nvcc registers a translation unit's device code with the CUDA runtime at start-up; the
   host simulation has no device code to register and links no runtime, so these do
   nothing. */
void** __cudaRegisterFatBinary(void* fatbin) { static void* handle; (void)fatbin; return &handle; }
void __cudaRegisterFatBinaryEnd(void** handle) { (void)handle; }
void __cudaUnregisterFatBinary(void** handle) { (void)handle; }
void __cudaRegisterVar(void) {}
