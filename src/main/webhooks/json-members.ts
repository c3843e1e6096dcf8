// Whether a JSON text names a member twice in one object ({"status":-1,"status":5}).
// JSON.parse keeps the last; other parsers keep the first or refuse. A webhook body read one
// way here and another way by the merchant's receiver could carry a value the signature does
// not cover, so such a body is never verified (delivery-verdict.ts). Member names are
// compared after unescaping ("st\u0061tus" is "status").

/** True when some object in the (valid) JSON text has two members of the same name. */
export function hasDuplicateMembers(text: string): boolean {
  // One set of names per open object; null for an open array.
  const stack: Array<Set<string> | null> = []
  let expectName = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c /* \ */) i++
        else if (d === 0x22) break
      }
      const top = stack[stack.length - 1]
      if (expectName && top) {
        let name: string
        try {
          name = JSON.parse(text.slice(start, i + 1)) as string
        } catch {
          return false
        }
        if (top.has(name)) return true
        top.add(name)
      }
      expectName = false
    } else if (c === 0x7b /* { */) {
      stack.push(new Set())
      expectName = true
    } else if (c === 0x5b /* [ */) {
      stack.push(null)
      expectName = false
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop()
      expectName = false
    } else if (c === 0x2c /* , */) {
      expectName = stack[stack.length - 1] instanceof Set
    }
  }
  return false
}
