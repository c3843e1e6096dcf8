// A strict reader of desktop entries, written from the Desktop Entry Specification's
// reading side (independently of the writer in src/main/linux-autostart.ts), so tests can
// check that what Rampdesk writes reads back as exactly what it meant. Strict: an escape
// or quoting the spec does not define is an error here, not a guess.

/** Lines of the [Desktop Entry] group as key -> raw value (whitespace around '=' trimmed). */
export function readEntry(text: string): Map<string, string> {
  const lines = text.split('\n')
  if (lines[0] !== '[Desktop Entry]') throw new Error(`first line is ${JSON.stringify(lines[0])}, not the group header`)
  const keys = new Map<string, string>()
  for (const line of lines.slice(1)) {
    if (line === '') continue
    // Only spaces and tabs around '=' are not part of the value (GLib trims ASCII blanks); and
    // the value runs to the newline, U+2028 and U+2029 included, which JavaScript's '.' skips.
    const m = /^([A-Za-z0-9-]+)[ \t]*=[ \t]*([^]*)$/.exec(line)
    if (!m) throw new Error(`not a key=value line: ${JSON.stringify(line)}`)
    if (keys.has(m[1]!)) throw new Error(`key ${m[1]} appears twice`)
    keys.set(m[1]!, m[2]!)
  }
  return keys
}

/** A value of type string, its escapes undone (\s \n \t \r \\ only). */
export function unescapeString(raw: string): string {
  let out = ''
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c !== '\\') {
      out += c
      continue
    }
    const next = raw[++i]
    const map: Record<string, string> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' }
    if (next === undefined || !(next in map)) throw new Error(`invalid escape \\${next ?? ''} in ${JSON.stringify(raw)}`)
    out += map[next]
  }
  return out
}

const RESERVED = new Set([' ', '\t', '\n', '"', "'", '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(', ')', '`'])

/** The argv an Exec value stands for: string escapes, then quoting, then %% (no field codes expected). */
export function readExec(raw: string): string[] {
  const value = unescapeString(raw)
  const args: string[] = []
  let i = 0
  while (i < value.length) {
    if (value[i] === ' ') {
      i++
      continue
    }
    let arg = ''
    if (value[i] === '"') {
      i++
      for (;;) {
        const c = value[i]
        if (c === undefined) throw new Error(`unterminated quote in ${JSON.stringify(value)}`)
        if (c === '"') break
        if (c === '\\') {
          const next = value[i + 1]
          if (next === undefined || !'"`$\\'.includes(next)) throw new Error(`undefined escape inside quotes in ${JSON.stringify(value)}`)
          arg += next
          i += 2
          continue
        }
        if ('`$'.includes(c)) throw new Error(`unescaped ${c} inside quotes in ${JSON.stringify(value)}`)
        arg += c
        i++
      }
      i++
      if (i < value.length && value[i] !== ' ') throw new Error(`text right after a closing quote in ${JSON.stringify(value)}`)
    } else {
      while (i < value.length && value[i] !== ' ') {
        if (RESERVED.has(value[i]!)) throw new Error(`reserved ${JSON.stringify(value[i])} outside quotes in ${JSON.stringify(value)}`)
        arg += value[i]
        i++
      }
    }
    args.push(expandPercent(arg))
  }
  return args
}

function expandPercent(arg: string): string {
  return arg.replace(/%(.?)/g, (_m, code: string) => {
    if (code === '%') return '%'
    throw new Error(`field code %${code} in ${JSON.stringify(arg)}`)
  })
}
