// The sandbox's own address checksums for its sample addresses, written from the standards
// (EIP-55; CRC-16/XMODEM as TON's user-friendly addresses use it), not taken from the client's
// address checker: samples made with the client's code and checked with it would pass
// whatever that code got wrong.
import { keccak_256 } from '@noble/hashes/sha3.js'

/** EIP-55: each hex letter upper-case where the keccak-256 of the lower-case hex has a nibble >= 8. */
export function eip55(hex40: string): string {
  const lower = hex40.toLowerCase()
  const hash = keccak_256(new TextEncoder().encode(lower))
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  }
  return out
}

/** CRC-16/XMODEM (poly 0x1021, init 0): check value of "123456789" is 0x31C3. */
export function crc16(data: Uint8Array): number {
  let crc = 0
  for (const byte of data) {
    for (let bit = 7; bit >= 0; bit--) {
      const top = ((crc >> 15) & 1) ^ ((byte >> bit) & 1)
      crc = ((crc << 1) & 0xffff) ^ (top ? 0x1021 : 0)
    }
  }
  return crc
}
