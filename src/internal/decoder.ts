/**
 * The one decode sequence every transcript decoder runs (the canonical, prompt and provider
 * formats): declared once here, called by each format with its schemas and its conversion.
 *
 * 1. **Never throws**: the whole sequence runs inside {@link Input.total}, so input no JSON parser
 *    makes (a throwing getter, a revoked proxy) is a `MalformedInput`, not an exception.
 * 2. **Unknown request keys**: an object's keys must be the format's `requestKeys` (the conversation
 *    and the request parameters, ignored); any other is a `MalformedInput` naming it.
 * 3. **Where to read**: the format says which of its shapes the input has and where that shape sits
 *    in it (a request body's `messages`, a bare list), or answers at once (no accepted shape).
 * 4. **Guard**: a predicate compiled from the shape's Schema (src/internal/guard.ts) says whether the
 *    Schema decode would succeed; when it does, the format's conversion runs on the input as it is.
 * 5. **Explain** what the guard refused: the depth limit first (input nested too deeply, or cyclic,
 *    would overflow the Schema decode's stack), then the Schema decode, whose error becomes a
 *    `MalformedInput` at the full path into the input, with the message and block it is in. The rare
 *    input the guard leaves to the Schema on purpose (objects that are not plain) decodes there, and
 *    its decoded value is converted.
 *
 * A shape's guard and Schema decoder are built on their first use, not when a module loads.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import { excessKeys } from "./excessKeys.js"
import * as Guard from "./guard.js"
import { issueOf, type Pick } from "./parseIssue.js"
import { isRecord, maxDepth, tooDeep } from "./plain.js"
import { decodeLoss, type Report, type Reporting } from "./report.js"
import * as RequestBody from "./requestBody.js"
import { locate, type Locator, total } from "./wireInput.js"

type Path = ConversionError.Path

/** One shape a decoder reads, as its guard and its Schema decode, each built on first use. */
export interface Shape<A> {
  /** Does `u` decode (compiled from the schema on the first call)? */
  readonly is: (u: unknown) => boolean
  /** The Schema decode, for the error (or for the rare value the guard leaves to it). */
  readonly decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
  /** The schema itself, for the keys it does not declare (excessKeys.ts), read only to report losses. */
  readonly schema: Schema.Schema.AnyNoContext
}

/** A shape read from `schema` with `options` (what a struct does with keys it does not declare). */
export const shape = <A, I>(schema: Schema.Schema<A, I>, options: Guard.Options): Shape<A> => {
  let is: Guard.Guard | undefined
  let decode: ((u: unknown) => Either.Either<A, ParseResult.ParseError>) | undefined
  return {
    is: (u) => (is ??= Guard.compile(schema, options))(u),
    decode: (u) => (decode ??= Schema.decodeUnknownEither(schema, options))(u),
    schema
  }
}

/** Where a decoder reads its input: which shape, at which place. */
export interface Target<A> {
  readonly shape: Shape<A>
  /** What the shape reads. */
  readonly value: unknown
  /** Where `value` sits in the input. */
  readonly path: Path
  /** Which message and block a path into the input points into (none when absent). */
  readonly locator?: Locator | undefined
  /**
   * What the Schema decode reads of `value`, held to the depth limit before it (only that, so that
   * a request body's ignored parameters may nest as they like); `value` itself when absent.
   */
  readonly read?: ((value: unknown) => unknown) | undefined
}

/** The type of the values a target's shape reads. */
export type Value<T> = T extends Target<infer A> ? A : never

/** A format's transcript decoder, as its public module declares `decode`. */
export type Decode<O, E> = (input: unknown, options?: O) => Either.Either<Conversation.Conversation, E>

/** A decoder's answer: its result, or why the input is not one. */
export type Result<Out, E> = Either.Either<Out, E | ConversionError.MalformedInput>

/** What a format gives {@link make}: its name, its request keys, its shapes and its conversion. */
export interface Spec<T extends Target<any>, Out, E, O> {
  readonly format: ConversionError.FormatName
  /** The keys a request body may hold; absent when the format has no request body. */
  readonly requestKeys?: RequestBody.Keys | undefined
  /** The API whose request parameters `requestKeys` lists, as losses name it ("the Messages API"). */
  readonly api?: string | undefined
  /** Which issue of a failed Schema decode is reported (parseIssue.ts). */
  readonly issue: Pick
  /**
   * Is the input held to the depth limit before the Schema decode? Not needed where every unbounded
   * value is JSON, whose schema holds itself to the limit and reports where the value starts.
   */
  readonly depthLimit: boolean
  /** Where to read `input`, or the answer already (an input of no shape the format reads). */
  readonly target: (input: unknown, options: O | undefined) => T | Result<Out, E>
  /** The conversion of a value of the shape (the input as it is, when the guard passed it). */
  readonly convert: (value: Value<T>, target: T, options: O | undefined) => Result<Out, E>
  /**
   * How to explain what the guard refused, in place of the depth limit and the Schema decode of the
   * whole target (the canonical format explains message by message).
   */
  readonly explain?: ((target: T, options: O | undefined) => Result<Out, E>) | undefined
}

const malformed = (
  format: ConversionError.FormatName,
  path: Path,
  reason: string,
  locator: Locator | undefined
): ConversionError.MalformedInput =>
  new ConversionError.MalformedInput({
    format,
    path,
    reason,
    ...(locator === undefined ? {} : locate(path, locator))
  })

/** A decoder: the sequence above, for one format. */
export const make = <T extends Target<any>, Out, E, O>(
  spec: Spec<T, Out, E, O>
): (input: unknown, options?: O) => Result<Out, E> => {
  const { convert, depthLimit, format, issue } = spec
  const checkBody = spec.requestKeys === undefined
    ? undefined
    : RequestBody.checker(format, spec.requestKeys, spec.api ?? `${format} API`)
  const explain = spec.explain ?? ((target: T, options: O | undefined): Result<Out, E> => {
    if (depthLimit) {
      const deep = tooDeep(target.read === undefined ? target.value : target.read(target.value))
      if (deep !== undefined) {
        return Either.left(
          malformed(
            format,
            [...target.path, ...deep],
            `nested more than ${maxDepth} levels deep (or cyclic)`,
            target.locator
          )
        )
      }
    }
    const decoded = target.shape.decode(target.value)
    if (Either.isRight(decoded)) return convert(decoded.right, target, options)
    const { message, path } = issueOf(decoded.left, issue)
    return Either.left(malformed(format, [...target.path, ...path], message, target.locator))
  })
  const run = (input: unknown, options: O | undefined, report: Report | undefined): Result<Out, E> => {
    if (checkBody !== undefined && isRecord(input)) {
      const error = checkBody(input, report)
      if (error !== undefined) return Either.left(error)
    }
    const target = spec.target(input, options)
    // a target has a shape; an answer given already is an `Either` (told apart by a property read,
    // which costs less than `Either.isEither`'s symbol lookup on every call)
    if ((target as Partial<T>).shape === undefined) return target as Result<Out, E>
    const { shape, value } = target as T
    const result = shape.is(value) ? convert(value as Value<T>, target as T, options) : explain(target as T, options)
    if (report !== undefined && Either.isRight(result)) {
      // a request body read as the target has its own keys reported by `checkBody`
      excessLosses(format, target as T, report, checkBody !== undefined && value === input)
    }
    return result
  }
  /**
   * With `onLoss`: what the conversion left out goes to it once the decode succeeded, in this order:
   * a request body's keys that are not the conversation, the keys the shape's schema does not
   * declare (document order), then what the conversion chose to leave out (its own `onLoss` calls).
   */
  const reporting = (input: unknown, options: O | undefined, onLoss: Report): Result<Out, E> => {
    const own: Array<ConversionError.Lost> = []
    const found: Array<ConversionError.Lost> = []
    const result = run(
      input,
      { ...options, onLoss: (loss: ConversionError.Lost) => own.push(loss) } as O,
      (loss) => found.push(loss)
    )
    if (Either.isRight(result)) {
      for (const loss of found) onLoss(loss)
      for (const loss of own) onLoss(loss)
    }
    return result
  }
  return (input, options) => {
    const onLoss = (options as Reporting | undefined)?.onLoss
    return total(
      format,
      () => onLoss === undefined ? run(input, options, undefined) : reporting(input, options, onLoss)
    )
  }
}

// -----------------------------------------------------------------------------
// losses: the keys the wire schemas do not declare
// -----------------------------------------------------------------------------

/** Why a key that decoding ignores is lost, for the keys the formats' pages name. */
const reasons: { readonly [key: string]: string } = {
  name: "a canonical message has no speaker name",
  weight: "a fine-tuning weight has no place in a canonical message",
  cache_control: "a caching hint for one request, not content",
  annotations: "a canonical text block has no place for annotations (citations)",
  detail: "an image's detail (resolution) hint has no place in a canonical image",
  index: "a position in a streamed answer, not content",
  status: "the state of an item when it was produced, not content",
  logprobs: "token log probabilities are not content",
  video_metadata: "a request-time hint for video input, not content",
  videoMetadata: "a request-time hint for video input, not content",
  media_resolution: "a request-time hint, not content",
  mediaResolution: "a request-time hint, not content",
  part_metadata: "metadata of a part, not content",
  partMetadata: "metadata of a part, not content"
}

/** Report every key of the target's value that its shape's schema does not declare. */
const excessLosses = <T extends Target<any>>(
  format: ConversionError.FormatName,
  target: T,
  report: Report,
  root: boolean
): void => {
  const found = excessKeys(target.shape.schema, target.value, { root })
  for (const { key, path: inner } of found) {
    const path = [...target.path, ...inner]
    report(
      decodeLoss(
        format,
        path,
        key,
        reasons[key] ?? `the ${format} format does not read this key, and the canonical form has no place for it`,
        target.locator === undefined ? {} : locate(path, target.locator)
      )
    )
  }
}
