/**
 * The streaming core of `convert`: conversations in, JSON out, one failure line per bad conversation.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as ConversionError from "../../ConversionError.js"
import * as Format from "../../Format.js"

export interface Options {
  readonly from: Format.Source
  readonly to: Format.Target
}

/** One converted conversation (`Right`: its JSON) or one failure (`Left`: its stderr line). */
export type Outcome = Either.Either<string, string>

const parseJson = (text: string, source: Format.Source): Either.Either<unknown, ConversionError.MalformedInput> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (e) {
    return Either.left(
      new ConversionError.MalformedInput({
        format: source,
        path: [],
        reason: `not valid JSON (${e instanceof Error ? e.message : String(e)})`
      })
    )
  }
}

/**
 * The stderr line for a failed conversation: the error's tag first, then where, then why.
 * `UnsupportedBlock: line 3, message 2, block 1: <reason>`
 */
export const describeFailure = (error: ConversionError.ConversionError, line: number | undefined): string => {
  const where: Array<string> = []
  if (line !== undefined) where.push(`line ${line}`)
  if ("messageIndex" in error && error.messageIndex !== undefined) where.push(`message ${error.messageIndex}`)
  if ("blockIndex" in error && error.blockIndex !== undefined) where.push(`block ${error.blockIndex}`)
  if (where.length === 0 && error.path.length > 0) where.push(`at ${JSON.stringify(error.path)}`)
  const reason = error._tag === "MalformedInput" && error.path.length > 0
    ? `${error.reason} (at ${JSON.stringify(error.path)})`
    : error.reason
  return `${error._tag}: ${where.length > 0 ? where.join(", ") + ": " : ""}${reason}`
}

/** Convert the text of one conversation. */
export const convertText = (
  text: string,
  options: Options,
  space?: number
): Either.Either<string, ConversionError.ConversionError> =>
  Either.flatMap(parseJson(text, options.from), (input) =>
    Either.map(
      Format.convert(input, options),
      (output) => JSON.stringify(output, null, space)
    ))

/**
 * Convert a stream of JSONL lines, in order, in bounded memory. Blank lines are skipped (but counted,
 * so line numbers match the file).
 */
export const convertLines = <E, R>(
  lines: Stream.Stream<string, E, R>,
  options: Options
): Stream.Stream<Outcome, E, R> =>
  lines.pipe(
    Stream.zipWithIndex,
    Stream.filter(([line]) => line.trim().length > 0),
    Stream.map(([line, index]) =>
      Either.match(convertText(line, options), {
        onLeft: (error) => Either.left(describeFailure(error, index + 1)),
        onRight: (json) => Either.right(json)
      })
    )
  )
