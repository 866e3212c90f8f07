/**
 * Log lines written while a session's code runs carry none of its secrets: the session's own
 * `setup`, tools, prompts, scoring and teardown log through Effect's logger, and so do the
 * server's lines about them. Each logger is wrapped once so that it reads the redactor of the
 * session whose code logs (a fiber ref, set while that code runs) and applies it to the message,
 * the cause and the annotations before writing anything, in every spelling a secret can take
 * (`Errors.spellings`). Sessions without secrets run as they are.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import { globalValue } from "effect/GlobalValue"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Inspectable from "effect/Inspectable"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { noRedaction, type Redact } from "./errors.js"

/**
 * The redactor of the session whose code runs on this fiber.
 *
 * @internal
 */
export const currentRedact: FiberRef.FiberRef<Redact> = globalValue(
  Symbol.for("openreward-effect/Server/currentRedact"),
  () => FiberRef.unsafeMake<Redact>(noRedaction)
)

const wrapped = Symbol.for("openreward-effect/Server/redactingLogger")

const isPlain = (u: object): boolean => {
  const prototype = Object.getPrototypeOf(u)
  return prototype === Object.prototype || prototype === null
}

/**
 * `value` with every secret taken out: strings redacted, plain objects and arrays copied with their
 * contents redacted, errors copied with their message and stack redacted; any other object that
 * prints a secret is replaced by its printed form, redacted (and so is what nests deeper than 32
 * levels). What holds no secret is kept as it is.
 *
 * @internal
 */
export const redactValue = (value: unknown, redact: Redact, depth = 0): unknown => {
  if (typeof value === "string") return redact(value)
  if (typeof value !== "object" || value === null || Redacted.isRedacted(value)) return value
  if (value instanceof Error) {
    const message = redact(value.message)
    const stack = value.stack === undefined ? undefined : redact(value.stack)
    const cause = "cause" in value ? redactValue(value.cause, redact, depth + 1) : undefined
    if (message === value.message && stack === value.stack && cause === (value as { cause?: unknown }).cause) {
      return value
    }
    const copy = new Error(message, cause === undefined ? undefined : { cause })
    copy.name = value.name
    if (stack !== undefined) copy.stack = stack
    return copy
  }
  if (depth < 32 && Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, redact, depth + 1))
    return items.every((item, i) => item === value[i]) ? value : items
  }
  if (depth < 32 && isPlain(value)) {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    const values = keys.map((key) => redactValue(record[key], redact, depth + 1))
    if (keys.every((key, i) => values[i] === record[key] && redact(key) === key)) return value
    const out: Record<string, unknown> = {}
    keys.forEach((key, i) =>
      Object.defineProperty(out, redact(key), {
        value: values[i],
        enumerable: true,
        writable: true,
        configurable: true
      })
    )
    return out
  }
  const printed = Inspectable.toStringUnknown(value, 0)
  return redact(printed) === printed ? value : redact(printed)
}

const redactCause = (cause: Cause.Cause<unknown>, redact: Redact): Cause.Cause<unknown> =>
  Cause.match(cause, {
    onEmpty: cause,
    onFail: (error) => Cause.fail(redactValue(error, redact)),
    onDie: (defect) => Cause.die(redactValue(defect, redact)),
    onInterrupt: Cause.interrupt,
    onSequential: Cause.sequential,
    onParallel: Cause.parallel
  })

const redacting = <Message, Output>(logger: Logger.Logger<Message, Output>): Logger.Logger<Message, Output> => {
  if (wrapped in logger) return logger
  return Object.assign(
    Logger.make<Message, Output>((options) => {
      const redact = FiberRefs.getOrDefault(options.context, currentRedact)
      if (redact === noRedaction) return logger.log(options)
      return logger.log({
        ...options,
        message: redactValue(options.message, redact) as Message,
        cause: Cause.isEmpty(options.cause) ? options.cause : redactCause(options.cause, redact),
        annotations: HashMap.map(options.annotations, (value) => redactValue(value, redact))
      })
    }),
    { [wrapped]: true }
  )
}

/**
 * Run a session's code with its secrets kept out of every log line it writes.
 *
 * @internal
 */
export const withRedaction = (redact: Redact) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  redact === noRedaction ? self : self.pipe(
    Effect.locally(currentRedact, redact),
    Effect.locallyWith(FiberRef.currentLoggers, HashSet.map(redacting))
  )
