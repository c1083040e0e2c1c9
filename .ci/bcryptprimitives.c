/*
 * A stand-in for Windows' bcryptprimitives.dll under Wine 8.0, which lacks
 * it: Go's Windows runtime (Go 1.22 and later) fills its random numbers
 * with ProcessPrng and stops without it. This one draws them from
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. Built by
 * .ci/wine with Debian's mingw-w64 and put in the Wine prefix's system32;
 * never part of plangit.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
