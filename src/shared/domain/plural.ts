// A count with its noun in the right number ("1 order", "2 orders", "0 orders"), for
// every text an operator reads. English words: the locale only writes the number.

/** The English plural of the nouns the app counts: a word with an irregular plural is given both forms. */
export type Noun = string | readonly [one: string, many: string]

const many = (n: Noun): string => (typeof n === 'string' ? `${n}s` : n[1])
const one = (n: Noun): string => (typeof n === 'string' ? n : n[0])

/** The noun for a count: its singular for exactly one, its plural otherwise (0 orders, 2 orders, 1.5 orders). */
export function nounFor(n: number, noun: Noun): string {
  return n === 1 ? one(noun) : many(noun)
}

/**
 * "1 order", "49,291 orders": `write` writes the number (the operator's locale; plain
 * digits when absent).
 */
export function counted(n: number, noun: Noun, write: (n: number) => string = String): string {
  return `${write(n)} ${nounFor(n, noun)}`
}
