/* A stand-in for Windows' bcryptprimitives.dll, for running agview's test suite under Wine 8
 * (Debian bookworm's), which lacks the DLL. Rust's standard library (since 1.78) takes its
 * random bytes from ProcessPrng there; this one asks RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. CI builds it with mingw (.ci/wine/setup); it is never
 * shipped: Windows itself has the real DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
