// libFuzzer's entry point for programs that keep their own main (LLVM 11+). Only the libFuzzer build of
// PinSetFuzz (`make fuzz-build`, -DFUZZING) calls it; other builds never reference it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
