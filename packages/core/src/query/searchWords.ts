const word = /[\p{L}\p{N}]+/gu

/**
 * The words `search` matches terms against: maximal runs of letters and digits of the lowercased
 * value. Combining marks (`\p{M}`) split words, so decomposed accents (NFD) break a word in two;
 * values are not normalised, because PostgreSQL would have to do exactly the same.
 */
export const searchWordsOf = (value: string): ReadonlyArray<string> => value.toLowerCase().match(word) ?? []
