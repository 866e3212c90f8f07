/**
 * Tool lists in provider formats: what `list_tools(format=...)` returns in the reference SDK.
 *
 * An environment lists its tools as {@link Protocol.ToolSpec}s: a `name`, a `description` and a
 * JSON Schema `input_schema` (raw pydantic output, with `title`s, `$defs`, `anyOf` and so on).
 * {@link convert} reshapes such a list for a provider's function-calling API, exactly as the
 * reference's `convert_tool_response` does (openreward 0.1.167), schema sanitizing included:
 *
 * | format              | one tool                                                              |
 * | ------------------- | --------------------------------------------------------------------- |
 * | `openai`            | `{type: "function", name, description, parameters}` (Responses API)  |
 * | `openrouter`        | `{type: "function", function: {name, description}, parameters}`      |
 * | `anthropic`         | `{type: "custom", name, description, input_schema}`                   |
 * | `google`            | `{name, description, parameters}`                                     |
 * | `openai-compatible` | `{type: "function", function: {name, description, parameters}}`      |
 *
 * Rules, all the reference's:
 * - Every tool key other than `input_schema` and `title` is copied (`name`, `description`, and any
 *   key a newer server adds), with `title` keys removed at every depth.
 * - A tool without a schema (missing, `null`, `{}`, or anything else Python takes as false: `[]`,
 *   `false`, `0`, `""`) gets `parameters: null`; for `anthropic`,
 *   `input_schema: {type: "object", properties: {}}`.
 * - A tool is read without validation, as the reference reads it ({@link decode}): one without
 *   `name` or `description` converts to one without them, and keys keep the server's order.
 * - Schemas lose every `title` key, at every depth. Note that this also removes a *property* named
 *   `title` (while `required` still lists it); pass `{ preservePropertyNames: true }` to keep
 *   properties whose names collide with schema keywords.
 * - `openai`, `openrouter`, `openai-compatible`: `anyOf` collapses to its first non-null option,
 *   `oneOf` and `allOf` to their first option (sibling keys are kept, the option's keys win);
 *   `additionalProperties`, `patternProperties` and `not` are dropped; arrays without `items` get
 *   `items: {}`.
 * - `google`: `additionalProperties`, `additional_properties`, `default`, `examples`, `example`,
 *   `patternProperties`, `oneOf`, `allOf`, `anyOf` and `not` are dropped; `$ref` and `$defs` are
 *   renamed `ref` and `defs`.
 * - `anthropic`: titles are stripped, nothing else changes.
 *
 * **The `openrouter` quirk.** The reference puts `parameters` *beside* `function` rather than inside
 * it, which OpenRouter's Chat Completions endpoint ignores (the model then sees tools without
 * arguments). It is reproduced here for compatibility. For OpenRouter and every other Chat
 * Completions endpoint, use `openai-compatible`, the nested shape the reference offered up to 0.1.112.
 *
 * @example
 * ```ts
 * import * as Either from "effect/Either"
 * import * as ToolFormat from "openreward-effect/ToolFormat"
 * import * as assert from "node:assert"
 *
 * const tools = [{
 *   name: "lookup_order",
 *   description: "Look up an order.",
 *   input_schema: {
 *     type: "object",
 *     title: "Order",
 *     properties: { note: { anyOf: [{ type: "string" }, { type: "null" }], title: "Note" } }
 *   }
 * }]
 * const openai = Either.getOrThrow(ToolFormat.convert(tools, "openai"))
 * console.dir(openai, { depth: null })
 * ```
 *
 * ```text output
 * [
 *   {
 *     type: 'function',
 *     name: 'lookup_order',
 *     description: 'Look up an order.',
 *     parameters: { type: 'object', properties: { note: { type: 'string' } } }
 *   }
 * ]
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import * as ConversionError from "./ConversionError.js"
import * as Decoder from "./internal/decoder.js"
import { issueOf } from "./internal/parseIssue.js"
import { isRecord as isObject } from "./internal/plain.js"
import * as Json from "./Json.js"
import type * as Protocol from "./Protocol.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * The tool-list formats.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Format = Schema.Literal("openai", "openrouter", "anthropic", "google", "openai-compatible")
  .annotations({ identifier: "ToolFormat" })

/**
 * @category models
 * @since 0.1.0
 */
export type Format = typeof Format.Type

/**
 * Every format, in a stable order.
 *
 * @category constants
 * @since 0.1.0
 */
export const formats: ReadonlyArray<Format> = ["openai", "openrouter", "anthropic", "google", "openai-compatible"]

/**
 * @category guards
 * @since 0.1.0
 */
export const isFormat: (u: unknown) => u is Format = Schema.is(Format)

/**
 * A tool for OpenAI's Responses API (`tools=[...]`). Keys a server adds to a tool beyond `name` and
 * `description` are copied too, as the reference does.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenAiTool {
  readonly type: "function"
  readonly name: string
  readonly description: string
  readonly parameters: Json.JsonObject | null
}

/**
 * A tool as the reference's `openrouter` format shapes it: `parameters` beside `function`, not in
 * it (see the module documentation; prefer {@link OpenAiCompatibleTool}).
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenRouterTool {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description: string }
  readonly parameters: Json.JsonObject | null
}

/**
 * A tool for Anthropic's Messages API.
 *
 * @category models
 * @since 0.1.0
 */
export interface AnthropicTool {
  readonly type: "custom"
  readonly name: string
  readonly description: string
  readonly input_schema: Json.JsonObject
}

/**
 * A Gemini function declaration.
 *
 * @category models
 * @since 0.1.0
 */
export interface GoogleTool {
  readonly name: string
  readonly description: string
  readonly parameters: Json.JsonObject | null
}

/**
 * A tool for any Chat Completions endpoint (OpenAI, OpenRouter, vLLM, ...).
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenAiCompatibleTool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Json.JsonObject | null
  }
}

/**
 * The shape of one tool in each format.
 *
 * @category models
 * @since 0.1.0
 */
export interface Wire {
  readonly openai: OpenAiTool
  readonly openrouter: OpenRouterTool
  readonly anthropic: AnthropicTool
  readonly google: GoogleTool
  readonly "openai-compatible": OpenAiCompatibleTool
}

/**
 * A tool as a server lists it: a {@link Protocol.ToolSpec}, or, as {@link decode} reads a list from
 * a server that does not follow the spec, any JSON object (the reference converts those too: a
 * missing `name` or `description` is absent from the converted tool).
 *
 * @category models
 * @since 0.1.0
 */
export type Listed = Protocol.ToolSpec | Json.JsonObject

/**
 * Options of {@link convert} and {@link sanitizeSchema}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Treat the keys of `properties`, `patternProperties`, `$defs` and `definitions` as names rather
   * than keywords, and leave `enum`, `const`, `default`, `examples` and `required` values alone. The
   * reference does neither, so by default a property named `title` (or `not`, `anyOf`, ...) is
   * dropped. Default `false`.
   */
  readonly preservePropertyNames?: boolean | undefined
}

// -----------------------------------------------------------------------------
// schema sanitizing
// -----------------------------------------------------------------------------

type Value = Json.JsonValue

// a JSON value that is an object
const isRecord = (u: Value): u is Json.JsonObject => isObject(u)

// Keys whose value maps names to schemas, and keys whose value is data, in `preservePropertyNames` mode.
const nameMaps: ReadonlySet<string> = new Set(["properties", "patternProperties", "$defs", "definitions"])
const dataKeys: ReadonlySet<string> = new Set(["enum", "const", "default", "examples", "example", "required"])

/**
 * Rebuild an object key by key. `Object.fromEntries` defines own properties, so a key such as
 * `__proto__` stays data, and a repeated key keeps its first position with its last value, as a
 * Python dict does.
 */
const rebuild = (entries: Iterable<readonly [string, Value]>): Json.JsonObject => Object.fromEntries(entries)

/**
 * Apply `f` to each child of a schema node. In name-aware mode, the values of name maps are schemas
 * (their keys are kept as they are) and data keywords are left untouched.
 */
const children = (
  node: Json.JsonObject,
  aware: boolean,
  keep: (key: string) => boolean,
  rename: (key: string) => string,
  f: (value: Value) => Value
): Json.JsonObject =>
  rebuild(
    Object.entries(node).flatMap(([key, value]): ReadonlyArray<readonly [string, Value]> => {
      if (!keep(key)) return []
      if (aware && dataKeys.has(key)) return [[rename(key), value]]
      if (aware && nameMaps.has(key) && isRecord(value)) {
        return [[rename(key), rebuild(Object.entries(value).map(([name, schema]) => [name, f(schema)]))]]
      }
      return [[rename(key), f(value)]]
    })
  )

const mapArray = (value: Value, f: (value: Value) => Value): Value | undefined =>
  Array.isArray(value) ? (value as ReadonlyArray<Value>).map(f) : undefined

const identity = (key: string): string => key
const always = (): boolean => true

const stripTitles = (value: Value, aware: boolean): Value => {
  const go = (v: Value): Value =>
    isRecord(v) ? children(v, aware, (key) => key !== "title", identity, go) : mapArray(v, go) ?? v
  return go(value)
}

const openAiUnsupported: ReadonlySet<string> = new Set([
  "additionalProperties",
  "patternProperties",
  "oneOf",
  "allOf",
  "anyOf",
  "not"
])

const isNullSchema = (u: Value): boolean => isRecord(u) && u.type === "null"

/**
 * The option an `anyOf`, `oneOf` or `allOf` collapses to, as the reference picks it: nothing for an
 * empty (falsy) value; for `anyOf`, the first item that is not a `{"type": "null"}` schema, iterating
 * the value as Python does (a list's items, a string's characters, an object's keys), else the
 * first item; for the others, the first item of a list or string. `undefined` leaves the keyword to
 * be dropped, also where the reference fails on the value (a number, the first item of an object).
 */
const choose = (key: "anyOf" | "oneOf" | "allOf", options: Value): Value | undefined => {
  const items: ReadonlyArray<Value> | undefined = Array.isArray(options)
    ? options
    : typeof options === "string"
    ? [...options]
    : key === "anyOf" && isRecord(options)
    ? Object.keys(options)
    : undefined
  if (items === undefined || items.length === 0) return undefined
  return (key === "anyOf" ? items.find((o) => !isNullSchema(o)) : undefined) ?? items[0]
}

/** Python's truthiness of a JSON value: `null`, `false`, `0`, `""`, `[]` and `{}` are false. */
const truthy = (value: Value | undefined): value is Value => {
  if (value === undefined || value === null) return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === "object") return Object.keys(value).length > 0
  return value !== false && value !== 0 && value !== ""
}

const sanitizeOpenAi = (value: Value, aware: boolean): Value => {
  const go = (v: Value): Value => {
    if (!isRecord(v)) return mapArray(v, go) ?? v
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      if (!(key in v)) continue
      const chosen = choose(key, v[key]!)
      if (chosen === undefined) continue
      if (!isRecord(chosen)) return go(chosen)
      const siblings = Object.entries(v).filter(([k]) => k !== key)
      return go(rebuild([...siblings, ...Object.entries(chosen)]))
    }
    const out = children(v, aware, (key) => !openAiUnsupported.has(key), identity, go)
    return out.type === "array" && !("items" in out) ? rebuild([...Object.entries(out), ["items", {}]]) : out
  }
  return go(value)
}

const fixArrays = (value: Value, aware: boolean): Value => {
  const go = (v: Value): Value => {
    if (!isRecord(v)) return mapArray(v, go) ?? v
    const out = children(v, aware, always, identity, go)
    const type = out.type
    const isArray = type === "array" || (Array.isArray(type) && type.includes("array"))
    return isArray && !("items" in out) ? rebuild([...Object.entries(out), ["items", {}]]) : out
  }
  return go(value)
}

const googleUnsupported: ReadonlySet<string> = new Set([
  "additionalProperties",
  "additional_properties",
  "title",
  "default",
  "examples",
  "example",
  "patternProperties",
  "oneOf",
  "allOf",
  "anyOf",
  "not"
])

const googleRename = (key: string): string => key === "$ref" ? "ref" : key === "$defs" ? "defs" : key

const sanitizeGoogle = (value: Value, aware: boolean): Value => {
  const go = (v: Value): Value =>
    isRecord(v) ? children(v, aware, (key) => !googleUnsupported.has(key), googleRename, go) : mapArray(v, go) ?? v
  return go(value)
}

/**
 * Sanitize one JSON Schema for a format, as the reference's `sanitize_tool_schema` does: titles
 * stripped, then the format's fix-ups (see the module documentation). A missing or empty schema
 * (what Python takes as false: `null`, `{}`, `[]`, `false`, `0`, `""`) gives `{}`. The result is a
 * JSON value: a schema whose top level collapses to a boolean schema (`{"anyOf": [true]}`) stays a
 * boolean.
 *
 * @category sanitizing
 * @since 0.1.0
 */
export const sanitizeSchema = (
  schema: Json.JsonValue | undefined,
  format: Format,
  options?: Options
): Json.JsonValue => {
  if (!truthy(schema)) return {}
  const aware = options?.preservePropertyNames === true
  const stripped = stripTitles(schema, aware)
  switch (format) {
    case "openai":
    case "openrouter":
    case "openai-compatible":
      return fixArrays(sanitizeOpenAi(stripped, aware), aware)
    case "anthropic":
      return stripped
    case "google":
      return sanitizeGoogle(stripped, aware)
  }
}

// -----------------------------------------------------------------------------
// conversion
// -----------------------------------------------------------------------------

const collapsed = (index: number, name: Value | undefined, format: Format, schema: Value) =>
  new ConversionError.MalformedInput({
    format: "canonical",
    path: [index, "input_schema"],
    reason: `the input schema of tool ${typeof name === "string" ? JSON.stringify(name) : index} sanitizes to ${
      JSON.stringify(schema)
    } for ${format}, which is not an object schema`
  })

const convertOne = <F extends Format>(
  tool: Listed,
  index: number,
  format: F,
  options: Options | undefined
): Either.Either<Wire[F], ConversionError.MalformedInput> => {
  const raw = (tool as Json.JsonObject).input_schema
  const hasSchema = truthy(raw)
  const sanitized = sanitizeSchema(raw, format, options)
  if (!isRecord(sanitized)) return Either.left(collapsed(index, (tool as Json.JsonObject).name, format, sanitized))
  const aware = options?.preservePropertyNames === true
  const meta = Object.entries(tool as Json.JsonObject).flatMap((
    [key, value]
  ): ReadonlyArray<readonly [string, Value]> =>
    key === "input_schema" || key === "title" ? [] : [[key, stripTitles(value, aware)]]
  )
  const parameters: Json.JsonObject | null = hasSchema ? sanitized : null
  const out = ((): Json.JsonObject => {
    switch (format as Format) {
      case "openai":
        return rebuild([["type", "function"], ...meta, ["parameters", parameters]])
      case "openrouter":
        return rebuild([["type", "function"], ["function", rebuild(meta)], ["parameters", parameters]])
      case "anthropic":
        return rebuild([["type", "custom"], ...meta, [
          "input_schema",
          parameters ?? { type: "object", properties: {} }
        ]])
      case "google":
        return rebuild([...meta, ["parameters", parameters]])
      case "openai-compatible":
        return rebuild([["type", "function"], ["function", rebuild([...meta, ["parameters", parameters]])]])
    }
  })()
  return Either.right(out as unknown as Wire[F])
}

/**
 * Convert a tool list to a provider format, as the reference's `list_tools(format=...)` does. Fails
 * only when a tool's schema sanitizes to something that is not an object schema (a top-level
 * `anyOf` whose chosen option is a boolean schema, a schema that is a non-empty list, `true`, a
 * number or a string), which no provider accepts; the reference returns it anyway.
 *
 * @category conversions
 * @since 0.1.0
 */
export const convert: {
  <F extends Format>(
    format: F,
    options?: Options
  ): (tools: ReadonlyArray<Listed>) => Either.Either<ReadonlyArray<Wire[F]>, ConversionError.MalformedInput>
  <F extends Format>(
    tools: ReadonlyArray<Listed>,
    format: F,
    options?: Options
  ): Either.Either<ReadonlyArray<Wire[F]>, ConversionError.MalformedInput>
} = dual(
  (args) => typeof args[0] !== "string",
  <F extends Format>(
    tools: ReadonlyArray<Listed>,
    format: F,
    options?: Options
  ): Either.Either<ReadonlyArray<Wire[F]>, ConversionError.MalformedInput> =>
    Either.all(tools.map((tool, i) => convertOne(tool, i, format, options)))
)

const decodeList = Decoder.shape(Schema.Array(Json.JsonObject), { onExcessProperty: "ignore" }).decode

/**
 * Read a tool list from untrusted JSON, as the reference's `convert_tool_response` reads it: an
 * array of tool specs, or a whole `/tools` body (`{"tools": [...], ...}`). Each tool must be a JSON
 * object; nothing else is checked (a tool without `name` or `description`, or whose `input_schema`
 * is not an object, is read, and {@link convert} treats it as the reference does). Keys keep the
 * server's order (which {@link convert} writes back), a key named `__proto__` is data, and a tool
 * that omits `input_schema` gets `input_schema: null` last.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown
): Either.Either<ReadonlyArray<Listed>, ConversionError.MalformedInput> => {
  const body = isRecord(input as Value) && "tools" in (input as Json.JsonObject)
  const list: unknown = body ? (input as Json.JsonObject).tools : input
  const prefix: ConversionError.Path = body ? ["tools"] : []
  return Either.match(decodeList(list), {
    onLeft: (error) => {
      const { message, path } = issueOf(error, "first")
      return Either.left(
        new ConversionError.MalformedInput({ format: "canonical", path: [...prefix, ...path], reason: message })
      )
    },
    onRight: (tools) =>
      Either.right(
        tools.map((tool) => "input_schema" in tool ? tool : rebuild([...Object.entries(tool), ["input_schema", null]]))
      )
  })
}
