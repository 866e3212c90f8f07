/**
 * The indefinite article for a word in a message: `an "assistant" message`, `an "image" block`, `a
 * "user" message`. One helper, so that every message built from a role, a block type or an event
 * name reads the same.
 *
 * @internal
 */

// a word that starts with a vowel letter, except a "u" read as "you" (user, unit, usage, url, ...)
const vowelSound = /^(?:[aeio]|u(?!s|ni|ti|r|ka))/i

/** `"an " + word` when the word (a quote or backtick before it skipped) starts with a vowel sound, else `"a " + word`. */
export const withArticle = (word: string): string =>
  `${vowelSound.test(word.replace(/^["'`]/, "")) ? "an" : "a"} ${word}`
