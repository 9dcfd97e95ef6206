/* Test-only stand-in for Windows' bcryptprimitives.dll, which wine 8 lacks: Rust's standard
 * library (since 1.78) imports ProcessPrng from it for its random hash keys. Windows 10 and
 * later ship the real DLL; this one is placed next to the test host under wine only. It
 * forwards to RtlGenRandom (advapi32's SystemFunction036), which wine has. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
