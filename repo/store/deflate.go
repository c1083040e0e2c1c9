package store

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
)

// A loose object is a zlib stream (RFC 1950) of its header and content.
// compress/flate at its fastest level allocates about 1.2 MB of tables
// and buffers for a writer, and for a plan of a few hundred steps it
// touches some 50 fresh pages of them: a sixteenth of a step change's page
// faults, each costing tens of microseconds in a short-lived process.
// deflateLoose writes the same format with 16 KB of state: greedy LZ77
// matching through a 4096-entry hash table, coded with DEFLATE's fixed
// Huffman codes (RFC 1951, 3.2.6) in one block — or, when that would be
// larger than the input, stored blocks. Its streams are about a quarter
// longer than compress/flate's fastest level for prose, and at most half
// again as long for plan files (TestDeflateLooseRatio); packs, which
// go-git's encoder writes, are as before. Every stream it writes is read
// back by compress/zlib in its tests and by git in every repository test.

const (
	deflateHashBits  = 12
	deflateWindow    = 1 << 15 // the largest distance DEFLATE codes
	deflateMinMatch  = 4
	deflateMaxMatch  = 258
	deflateStoredMax = 1<<16 - 1
)

// deflateLoose returns the zlib stream of header followed by data.
func deflateLoose(header, data []byte) []byte {
	out := make([]byte, 0, len(header)+len(data)/3+64)
	out = append(out, 0x78, 0x01) // deflate, 32 KB window, fastest
	bw := bitWriter{out: out}
	bw.put(1, 1) // the final block
	bw.put(1, 2) // fixed Huffman codes
	for _, c := range header {
		bw.literal(c)
	}
	bw.lz77(data)
	bw.code(fixedLitLen(256))
	out = bw.flush()
	if len(out)-2 > len(header)+len(data)+(len(header)+len(data))/deflateStoredMax*5+5 {
		out = storedBlocks(out[:2], header, data)
	}
	a := adler32.New()
	a.Write(header)
	a.Write(data)
	return binary.BigEndian.AppendUint32(out, a.Sum32())
}

// storedBlocks appends header and data as uncompressed DEFLATE blocks.
func storedBlocks(out, header, data []byte) []byte {
	all := make([]byte, 0, len(header)+len(data))
	all = append(append(all, header...), data...)
	for {
		n := min(len(all), deflateStoredMax)
		final := byte(0)
		if n == len(all) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, all[:n]...)
		all = all[n:]
		if final == 1 {
			return out
		}
	}
}

// bitWriter writes DEFLATE's bit stream: fields least significant bit
// first, Huffman codes most significant bit first.
type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) put(v uint32, n uint) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman code given as (code, length), reversing it into
// the stream's bit order.
func (w *bitWriter) code(c huffCode) {
	w.put(uint32(bits.Reverse16(c.code)>>(16-c.len)), uint(c.len))
}

func (w *bitWriter) flush() []byte {
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
	return w.out
}

func (w *bitWriter) literal(c byte) { w.code(fixedLitLen(int(c))) }

// match writes a length (3–258) and a distance (1–32768).
func (w *bitWriter) match(length, dist int) {
	lc := lengthCode(length)
	w.code(fixedLitLen(257 + lc))
	if e := lengthExtra[lc]; e > 0 {
		w.put(uint32(length-lengthBase[lc]), e)
	}
	dc := distCode(dist)
	w.put(uint32(bits.Reverse8(uint8(dc))>>3), 5) // fixed distance codes: 5 bits
	if e := distExtra[dc]; e > 0 {
		w.put(uint32(dist-distBase[dc]), e)
	}
}

// lz77 writes data as literals and matches within it.
func (w *bitWriter) lz77(data []byte) {
	var table [1 << deflateHashBits]int32 // position+1 of the last 4 bytes hashing there
	hash := func(i int) uint32 {
		return binary.LittleEndian.Uint32(data[i:]) * 0x1e35a7bd >> (32 - deflateHashBits)
	}
	i := 0
	for i+deflateMinMatch <= len(data) {
		h := hash(i)
		cand := int(table[h]) - 1
		table[h] = int32(i + 1)
		if cand < 0 || i-cand > deflateWindow || binary.LittleEndian.Uint32(data[cand:]) != binary.LittleEndian.Uint32(data[i:]) {
			w.literal(data[i])
			i++
			continue
		}
		n := deflateMinMatch
		for n < deflateMaxMatch && i+n < len(data) && data[cand+n] == data[i+n] {
			n++
		}
		w.match(n, i-cand)
		for j := i + 1; j < i+n && j+deflateMinMatch <= len(data); j++ {
			table[hash(j)] = int32(j + 1) // the positions the match covers
		}
		i += n
	}
	for ; i < len(data); i++ {
		w.literal(data[i])
	}
}

type huffCode struct {
	code uint16
	len  uint8
}

// fixedLitLen is the fixed Huffman code of a literal/length symbol.
func fixedLitLen(v int) huffCode {
	switch {
	case v < 144:
		return huffCode{uint16(0x30 + v), 8}
	case v < 256:
		return huffCode{uint16(0x190 + v - 144), 9}
	case v < 280:
		return huffCode{uint16(v - 256), 7}
	default:
		return huffCode{uint16(0xc0 + v - 280), 8}
	}
}

var (
	lengthBase  = [29]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// lengthCode is the index in lengthBase of a match length's code.
func lengthCode(n int) int {
	switch {
	case n == deflateMaxMatch:
		return 28
	case n <= 10:
		return n - 3
	}
	// Codes come in fours per power of two of n-3: 4·(⌊log2(n-3)⌋-1)
	// + the two bits below the top one.
	n -= 3
	top := bits.Len(uint(n)) - 1
	return 4*(top-1) + n>>(top-2)&3
}

// distCode is the code of a distance.
func distCode(d int) int {
	if d <= 4 {
		return d - 1
	}
	// Codes come in pairs per power of two: 4 + 2·(⌊log2(d-1)⌋-1) + the
	// bit below the top one of d-1.
	d--
	top := bits.Len(uint(d)) - 1
	return 2*top + int(d>>(top-1))&1
}
