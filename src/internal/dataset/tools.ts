/**
 * A request body's tool settings (`tools`, the tool choice, the parallel-call setting) read from one
 * format and written in another's shape, above the conversation codecs: the codecs read the
 * conversation and ignore these keys, and this module makes sure they are converted or reported,
 * never dropped.
 *
 * Between formats the settings pass through one model: a tool is `{name, description,
 * input_schema, strict?}` (the protocol's `ToolSpec`, plus `strict`), the choice is
 * `{mode: "auto" | "none" | "required", names?}`, parallel calls a boolean. Schemas are copied as
 * they are (no sanitizing: every target takes JSON Schema, Gemini as `parametersJsonSchema`), except
 * that a Gemini `parameters` schema (OpenAPI's subset, `type: "OBJECT"`) has its type names
 * lowercased. What a target has no place for (a built-in tool, a key of a tool the model does not
 * have, `strict` for Gemini, ...) is a {@link Problem}, which the caller makes an error or a
 * reported loss.
 *
 * @internal
 */
import type * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"

type Path = ConversionError.Path
type Obj = { readonly [key: string]: unknown }

/** A tool, between formats. */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly input_schema: Json.JsonObject | null
  readonly strict?: boolean
}

/** Which tools the model must, may or may not call. */
export interface Choice {
  readonly mode: "auto" | "none" | "required"
  /** The tools it may call (all when absent). */
  readonly names?: ReadonlyArray<string>
}

/** A body's tool settings; absent ones were not in the body. */
export interface Settings {
  readonly tools?: ReadonlyArray<Tool>
  readonly choice?: Choice
  readonly parallel?: boolean
}

/** A setting a format has no place for: where it is in the input, its key, and why. */
export interface Problem {
  readonly path: Path
  readonly parameter: string
  readonly reason: string
}

/** A body that is not what the format's settings look like. */
export interface Malformed {
  readonly _tag: "Malformed"
  readonly path: Path
  readonly reason: string
}

/** What reading a body's settings found. */
export interface Read {
  readonly settings: Settings
  /** The body's keys that hold settings (they are replaced by the target's). */
  readonly keys: ReadonlyArray<string>
  /** Where each setting is in the record. */
  readonly origins: Origins
  readonly problems: ReadonlyArray<Problem>
}

export type Source = "canonical" | "openai" | "openrouter" | "anthropic" | "google" | "openai-responses" | "sharegpt"
export type Target = Source | "prompt"

const isObj = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)
const has = (o: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined

class Fail {
  constructor(readonly path: Path, readonly reason: string) {}
}
const fail = (path: Path, reason: string): never => {
  throw new Fail(path, reason)
}

const string = (u: unknown, path: Path, what: string): string =>
  typeof u === "string" ? u : fail(path, `${what} must be a string, got ${JSON.stringify(u) ?? "nothing"}`)

const optionalString = (u: unknown, path: Path, what: string): string =>
  u === undefined || u === null ? "" : string(u, path, what)

const schema = (u: unknown, path: Path): Json.JsonObject | null =>
  u === undefined || u === null
    ? null
    : isObj(u)
    ? u as Json.JsonObject
    : fail(path, `a tool's parameter schema must be a JSON object, got ${JSON.stringify(u)}`)

const optionalBoolean = (u: unknown, path: Path, what: string): boolean | undefined =>
  u === undefined || u === null
    ? undefined
    : typeof u === "boolean"
    ? u
    : fail(path, `${what} must be a boolean, got ${JSON.stringify(u)}`)

/** A list the API accepts as a list, or (Gemini) as one object in place of a list of one. */
const list = (u: unknown, path: Path, what: string, single: boolean): ReadonlyArray<unknown> =>
  Array.isArray(u)
    ? u
    : single && isObj(u)
    ? [u]
    : fail(path, `${what} must be an array, got ${JSON.stringify(u)}`)

const extraKeys = (o: Obj, known: ReadonlySet<string>, path: Path, problems: Array<Problem>, what: string) => {
  for (const key of Object.keys(o)) {
    if (!known.has(key)) {
      problems.push({
        path: [...path, key],
        parameter: key,
        reason: `${what} key ${JSON.stringify(key)} has no place in the tool model (name, description, schema, strict)`
      })
    }
  }
}

/** Gemini's OpenAPI-subset schema as JSON Schema: its type names (`OBJECT`, `STRING`) lowercased. */
const lowerTypes = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(lowerTypes)
  if (!isObj(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && typeof value === "string") out[key] = value.toLowerCase()
    else if (key === "properties" && isObj(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, lowerTypes(s)]))
    } else if (key === "items" || key === "anyOf") out[key] = lowerTypes(value)
    else out[key] = value
  }
  return out
}

// -----------------------------------------------------------------------------
// reading
// -----------------------------------------------------------------------------

const chatToolKeys: ReadonlySet<string> = new Set(["type", "function"])
const chatFunctionKeys: ReadonlySet<string> = new Set(["name", "description", "parameters", "strict"])

const readChat = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool>; choice?: Choice; parallel?: boolean } = {}
  const tools: Array<Tool> = []
  let sawTools = false
  if (has(body, "tools") && body["tools"] !== null) {
    sawTools = true
    list(body["tools"], [...base, "tools"], "tools", false).forEach((tool, i) => {
      const path = [...base, "tools", i]
      if (!isObj(tool)) return fail(path, "a tool must be an object")
      if (tool["type"] !== undefined && tool["type"] !== "function") {
        problems.push({
          path: [...path, "type"],
          parameter: "tools",
          reason: `a ${JSON.stringify(tool["type"])} tool is not a function tool`
        })
        return
      }
      extraKeys(tool, chatToolKeys, path, problems, "tool")
      const f = tool["function"]
      if (!isObj(f)) return fail([...path, "function"], "a function tool needs a function object")
      extraKeys(f, chatFunctionKeys, [...path, "function"], problems, "function")
      const strict = optionalBoolean(f["strict"], [...path, "function", "strict"], "strict")
      tools.push({
        name: string(f["name"], [...path, "function", "name"], "a function's name"),
        description: optionalString(f["description"], [...path, "function", "description"], "a description"),
        input_schema: schema(f["parameters"], [...path, "function", "parameters"]),
        ...(strict === undefined ? {} : { strict })
      })
    })
  }
  if (has(body, "functions") && body["functions"] !== null) {
    sawTools = true
    list(body["functions"], [...base, "functions"], "functions", false).forEach((f, i) => {
      const path = [...base, "functions", i]
      if (!isObj(f)) return fail(path, "a function must be an object")
      extraKeys(f, chatFunctionKeys, path, problems, "function")
      tools.push({
        name: string(f["name"], [...path, "name"], "a function's name"),
        description: optionalString(f["description"], [...path, "description"], "a description"),
        input_schema: schema(f["parameters"], [...path, "parameters"])
      })
    })
  }
  if (sawTools) settings.tools = tools
  const choice = body["tool_choice"]
  if (choice !== undefined && choice !== null) {
    const path = [...base, "tool_choice"]
    if (choice === "auto" || choice === "none" || choice === "required") settings.choice = { mode: choice }
    else if (isObj(choice) && choice["type"] === "function" && isObj(choice["function"])) {
      settings.choice = {
        mode: "required",
        names: [string(choice["function"]["name"], [...path, "function", "name"], "a function's name")]
      }
    } else if (isObj(choice) && choice["type"] === "allowed_tools" && isObj(choice["allowed_tools"])) {
      const allowed = choice["allowed_tools"]
      const mode = allowed["mode"] === "required" ? "required" : "auto"
      const names = list(allowed["tools"], [...path, "allowed_tools", "tools"], "allowed tools", false).map((t, i) =>
        isObj(t) && isObj(t["function"])
          ? string(t["function"]["name"], [...path, "allowed_tools", "tools", i, "function", "name"], "a name")
          : fail(
            [...path, "allowed_tools", "tools", i],
            "an allowed tool must be {type: \"function\", function: {name}}"
          )
      )
      settings.choice = { mode, names }
    } else {
      problems.push({
        path,
        parameter: "tool_choice",
        reason: `the tool choice ${JSON.stringify(choice)} is not one of the model's`
      })
    }
  }
  const call = body["function_call"]
  if (call !== undefined && call !== null && settings.choice === undefined) {
    const path = [...base, "function_call"]
    if (call === "auto" || call === "none") settings.choice = { mode: call }
    else if (isObj(call)) {
      settings.choice = { mode: "required", names: [string(call["name"], [...path, "name"], "a name")] }
    } else fail(path, `function_call must be "auto", "none" or {name}, got ${JSON.stringify(call)}`)
  }
  const parallel = optionalBoolean(body["parallel_tool_calls"], [...base, "parallel_tool_calls"], "parallel_tool_calls")
  if (parallel !== undefined) settings.parallel = parallel
  return settings
}

const responsesToolKeys: ReadonlySet<string> = new Set(["type", "name", "description", "parameters", "strict"])

const readResponses = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool>; choice?: Choice; parallel?: boolean } = {}
  if (has(body, "tools") && body["tools"] !== null) {
    const tools: Array<Tool> = []
    list(body["tools"], [...base, "tools"], "tools", false).forEach((tool, i) => {
      const path = [...base, "tools", i]
      if (!isObj(tool)) return fail(path, "a tool must be an object")
      if (tool["type"] !== "function") {
        problems.push({
          path: [...path, "type"],
          parameter: "tools",
          reason: `a built-in ${JSON.stringify(tool["type"])} tool has no place in the tool model (function tools only)`
        })
        return
      }
      extraKeys(tool, responsesToolKeys, path, problems, "tool")
      // the Responses API makes a function tool strict unless it says otherwise
      const strict = optionalBoolean(tool["strict"], [...path, "strict"], "strict") ?? true
      tools.push({
        name: string(tool["name"], [...path, "name"], "a function's name"),
        description: optionalString(tool["description"], [...path, "description"], "a description"),
        input_schema: schema(tool["parameters"], [...path, "parameters"]),
        strict
      })
    })
    settings.tools = tools
  }
  const choice = body["tool_choice"]
  if (choice !== undefined && choice !== null) {
    const path = [...base, "tool_choice"]
    if (choice === "auto" || choice === "none" || choice === "required") settings.choice = { mode: choice }
    else if (isObj(choice) && choice["type"] === "function") {
      settings.choice = { mode: "required", names: [string(choice["name"], [...path, "name"], "a function's name")] }
    } else if (isObj(choice) && choice["type"] === "allowed_tools") {
      const mode = choice["mode"] === "required" ? "required" : "auto"
      const names = list(choice["tools"], [...path, "tools"], "allowed tools", false).map((t, i) =>
        isObj(t) && t["type"] === "function"
          ? string(t["name"], [...path, "tools", i, "name"], "a name")
          : fail([...path, "tools", i], "an allowed tool must be {type: \"function\", name}")
      )
      settings.choice = { mode, names }
    } else {
      problems.push({
        path,
        parameter: "tool_choice",
        reason: `the tool choice ${JSON.stringify(choice)} is not one of the model's`
      })
    }
  }
  const parallel = optionalBoolean(body["parallel_tool_calls"], [...base, "parallel_tool_calls"], "parallel_tool_calls")
  if (parallel !== undefined) settings.parallel = parallel
  return settings
}

const anthropicToolKeys: ReadonlySet<string> = new Set(["type", "name", "description", "input_schema", "strict"])

const readAnthropic = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool>; choice?: Choice; parallel?: boolean } = {}
  if (has(body, "tools") && body["tools"] !== null) {
    const tools: Array<Tool> = []
    list(body["tools"], [...base, "tools"], "tools", false).forEach((tool, i) => {
      const path = [...base, "tools", i]
      if (!isObj(tool)) return fail(path, "a tool must be an object")
      if (tool["type"] !== undefined && tool["type"] !== null && tool["type"] !== "custom") {
        problems.push({
          path: [...path, "type"],
          parameter: "tools",
          reason: `a server or client tool of type ${JSON.stringify(tool["type"])} has no place in the tool model`
        })
        return
      }
      extraKeys(tool, anthropicToolKeys, path, problems, "tool")
      const strict = optionalBoolean(tool["strict"], [...path, "strict"], "strict")
      tools.push({
        name: string(tool["name"], [...path, "name"], "a tool's name"),
        description: optionalString(tool["description"], [...path, "description"], "a description"),
        input_schema: schema(tool["input_schema"], [...path, "input_schema"]),
        ...(strict === undefined ? {} : { strict })
      })
    })
    settings.tools = tools
  }
  const choice = body["tool_choice"]
  if (choice !== undefined && choice !== null) {
    const path = [...base, "tool_choice"]
    if (!isObj(choice)) return fail(path, `tool_choice must be an object, got ${JSON.stringify(choice)}`)
    switch (choice["type"]) {
      case "auto":
      case "none":
        settings.choice = { mode: choice["type"] }
        break
      case "any":
        settings.choice = { mode: "required" }
        break
      case "tool":
        settings.choice = { mode: "required", names: [string(choice["name"], [...path, "name"], "a tool's name")] }
        break
      default:
        problems.push({
          path,
          parameter: "tool_choice",
          reason: `the tool choice ${JSON.stringify(choice)} is not one of the model's`
        })
    }
    const disable = optionalBoolean(
      choice["disable_parallel_tool_use"],
      [...path, "disable_parallel_tool_use"],
      "disable_parallel_tool_use"
    )
    if (disable !== undefined) settings.parallel = !disable
  }
  return settings
}

const googleToolKeys: ReadonlySet<string> = new Set(["functionDeclarations", "function_declarations"])
const googleDeclarationKeys: ReadonlySet<string> = new Set([
  "name",
  "description",
  "parameters",
  "parametersJsonSchema",
  "parameters_json_schema"
])

const readGoogle = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool>; choice?: Choice; parallel?: boolean } = {}
  const config = isObj(body["config"]) ? body["config"] : undefined
  const at = (key: string): readonly [unknown, Path] | undefined =>
    has(body, key)
      ? [body[key], [...base, key]]
      : config !== undefined && has(config, key)
      ? [config[key], [...base, "config", key]]
      : undefined
  const toolsAt = at("tools")
  if (toolsAt !== undefined && toolsAt[0] !== null) {
    const [value, toolsPath] = toolsAt
    const tools: Array<Tool> = []
    list(value, toolsPath, "tools", true).forEach((tool, i) => {
      const path = Array.isArray(value) ? [...toolsPath, i] : toolsPath
      if (!isObj(tool)) return fail(path, "a tool must be an object")
      for (const key of Object.keys(tool)) {
        if (!googleToolKeys.has(key)) {
          problems.push({
            path: [...path, key],
            parameter: "tools",
            reason: `the ${JSON.stringify(key)} tool is not a function declaration`
          })
        }
      }
      const declarationsKey = has(tool, "functionDeclarations") ? "functionDeclarations" : "function_declarations"
      const declarations = tool[declarationsKey]
      if (declarations === undefined || declarations === null) return
      const many = Array.isArray(declarations)
      list(declarations, [...path, declarationsKey], declarationsKey, true).forEach((d, j) => {
        const dPath = many ? [...path, declarationsKey, j] : [...path, declarationsKey]
        if (!isObj(d)) return fail(dPath, "a function declaration must be an object")
        extraKeys(d, googleDeclarationKeys, dPath, problems, "function declaration")
        const jsonKey = has(d, "parametersJsonSchema") ? "parametersJsonSchema" : "parameters_json_schema"
        const input_schema = has(d, jsonKey)
          ? schema(d[jsonKey], [...dPath, jsonKey])
          : schema(lowerTypes(d["parameters"]), [...dPath, "parameters"])
        tools.push({
          name: string(d["name"], [...dPath, "name"], "a function's name"),
          description: optionalString(d["description"], [...dPath, "description"], "a description"),
          input_schema
        })
      })
    })
    settings.tools = tools
  }
  const configAt = at("toolConfig") ?? at("tool_config")
  if (configAt !== undefined && configAt[0] !== null) {
    const [value, path] = configAt
    if (!isObj(value)) return fail(path, "a tool config must be an object")
    for (const key of Object.keys(value)) {
      if (key !== "functionCallingConfig" && key !== "function_calling_config") {
        problems.push({
          path: [...path, key],
          parameter: key,
          reason: `the tool config's ${JSON.stringify(key)} has no place in the tool model`
        })
      }
    }
    const fKey = has(value, "functionCallingConfig") ? "functionCallingConfig" : "function_calling_config"
    const f = value[fKey]
    if (f !== undefined && f !== null) {
      const fPath = [...path, fKey]
      if (!isObj(f)) return fail(fPath, "a function calling config must be an object")
      const mode = f["mode"]
      const namesKey = has(f, "allowedFunctionNames") ? "allowedFunctionNames" : "allowed_function_names"
      const names = f[namesKey] === undefined || f[namesKey] === null
        ? undefined
        : list(f[namesKey], [...fPath, namesKey], namesKey, false).map((n, i) =>
          string(n, [...fPath, namesKey, i], "a function name")
        )
      const withNames = names === undefined ? {} : { names }
      switch (mode) {
        case undefined:
        case null:
        case "MODE_UNSPECIFIED":
        case "AUTO":
          settings.choice = { mode: "auto", ...withNames }
          break
        case "ANY":
          settings.choice = { mode: "required", ...withNames }
          break
        case "NONE":
          settings.choice = { mode: "none" }
          break
        default:
          problems.push({
            path: [...fPath, "mode"],
            parameter: "tool_config",
            reason: `the function calling mode ${JSON.stringify(mode)} has no counterpart in the other formats`
          })
      }
    }
  }
  return settings
}

const canonicalToolKeys: ReadonlySet<string> = new Set(["name", "description", "input_schema", "strict"])

const shareGptToolKeys: ReadonlySet<string> = new Set(["name", "description", "parameters"])

/**
 * LLaMA-Factory's `tools`: JSON text of a list of `{name, description, parameters}` (or of OpenAI
 * function tools), as its ShareGPT files hold it; a list itself is read too. Paths inside the text
 * do not exist in the input: errors and problems there point at `tools`.
 */
const readShareGpt = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool> } = {}
  if (!has(body, "tools") || body["tools"] === null) return settings
  const raw = body["tools"]
  const at = [...base, "tools"]
  let parsed: unknown = raw
  if (typeof raw === "string") {
    if (raw.trim() === "") return settings
    try {
      parsed = JSON.parse(raw)
    } catch {
      return fail(at, "tools must be JSON text of a list of tools")
    }
  }
  const inText = typeof raw === "string"
  settings.tools = list(parsed, at, "tools", true).map((tool, i) => {
    const path = inText ? at : [...at, i]
    if (!isObj(tool)) return fail(path, "a tool must be an object")
    let f: Obj = tool
    let fPath = path
    if (isObj(tool["function"])) {
      extraKeys(tool, chatToolKeys, path, problems, "tool")
      f = tool["function"]
      fPath = inText ? at : [...path, "function"]
    }
    extraKeys(f, f === tool ? shareGptToolKeys : chatFunctionKeys, fPath, problems, "tool")
    const strict = f === tool ? undefined : optionalBoolean(f["strict"], fPath, "strict")
    return {
      name: string(f["name"], fPath, "a tool's name"),
      description: optionalString(f["description"], fPath, "a description"),
      input_schema: schema(f["parameters"], fPath),
      ...(strict === undefined ? {} : { strict })
    }
  })
  return settings
}

const readCanonical = (body: Obj, base: Path, problems: Array<Problem>) => {
  const settings: { tools?: ReadonlyArray<Tool>; choice?: Choice; parallel?: boolean } = {}
  if (has(body, "tools") && body["tools"] !== null) {
    settings.tools = list(body["tools"], [...base, "tools"], "tools", false).map((tool, i) => {
      const path = [...base, "tools", i]
      if (!isObj(tool)) return fail(path, "a tool must be an object")
      extraKeys(tool, canonicalToolKeys, path, problems, "tool")
      const strict = optionalBoolean(tool["strict"], [...path, "strict"], "strict")
      return {
        name: string(tool["name"], [...path, "name"], "a tool's name"),
        description: optionalString(tool["description"], [...path, "description"], "a description"),
        input_schema: schema(tool["input_schema"], [...path, "input_schema"]),
        ...(strict === undefined ? {} : { strict })
      }
    })
  }
  const choice = body["tool_choice"]
  if (choice !== undefined && choice !== null) {
    const path = [...base, "tool_choice"]
    if (!isObj(choice) || (choice["mode"] !== "auto" && choice["mode"] !== "none" && choice["mode"] !== "required")) {
      return fail(
        path,
        `tool_choice must be {mode: "auto" | "none" | "required", names?}, got ${JSON.stringify(choice)}`
      )
    }
    const names = choice["names"] === undefined
      ? undefined
      : list(choice["names"], [...path, "names"], "names", false).map((n, i) =>
        string(n, [...path, "names", i], "a tool name")
      )
    settings.choice = { mode: choice["mode"], ...(names === undefined ? {} : { names }) }
  }
  const parallel = optionalBoolean(body["parallel_tool_calls"], [...base, "parallel_tool_calls"], "parallel_tool_calls")
  if (parallel !== undefined) settings.parallel = parallel
  return settings
}

/** The keys of a body that hold its tool settings, by format. */
export const settingKeys: { readonly [S in Source]: ReadonlyArray<string> } = {
  canonical: ["tools", "tool_choice", "parallel_tool_calls"],
  openai: ["tools", "tool_choice", "parallel_tool_calls", "functions", "function_call"],
  openrouter: ["tools", "tool_choice", "parallel_tool_calls", "functions", "function_call"],
  "openai-responses": ["tools", "tool_choice", "parallel_tool_calls"],
  anthropic: ["tools", "tool_choice"],
  google: ["tools", "tool_config", "toolConfig"],
  sharegpt: ["tools"]
}

/**
 * Read the tool settings of `body` (a request body of `format`, at `base` in the record). Fails
 * only when a setting is malformed; what the model has no place for is a problem.
 */
export const read = (format: Source, body: Obj, base: Path): Read | Malformed => {
  const problems: Array<Problem> = []
  try {
    const settings = format === "openai" || format === "openrouter"
      ? readChat(body, base, problems)
      : format === "openai-responses"
      ? readResponses(body, base, problems)
      : format === "anthropic"
      ? readAnthropic(body, base, problems)
      : format === "google"
      ? readGoogle(body, base, problems)
      : format === "sharegpt"
      ? readShareGpt(body, base, problems)
      : readCanonical(body, base, problems)
    const keys = settingKeys[format].filter((key) => has(body, key))
    const config = format === "google" && isObj(body["config"]) ? body["config"] : undefined
    const where = (...candidates: ReadonlyArray<string>): Path => {
      for (const key of candidates) if (has(body, key)) return [...base, key]
      for (const key of candidates) if (config !== undefined && has(config, key)) return [...base, "config", key]
      return [...base, candidates[0]!]
    }
    const origins: Origins = {
      tools: where("tools", "functions"),
      choice: where("tool_choice", "function_call", "tool_config", "toolConfig"),
      parallel: format === "anthropic"
        ? [...base, "tool_choice", "disable_parallel_tool_use"]
        : where("parallel_tool_calls")
    }
    return { settings, keys, origins, problems }
  } catch (e) {
    if (e instanceof Fail) return { _tag: "Malformed", path: e.path, reason: e.reason }
    throw e
  }
}

/** Whether `settings` holds anything: a tool, a choice or a parallel-call setting. */
export const isEmpty = (settings: Settings): boolean =>
  (settings.tools === undefined || settings.tools.length === 0) && settings.choice === undefined &&
  settings.parallel === undefined

// -----------------------------------------------------------------------------
// writing
// -----------------------------------------------------------------------------

/** Options of {@link write}. */
export interface WriteOptions {
  /** Gemini's key spelling (default `"snake"`). */
  readonly casing?: "snake" | "camel" | undefined
}

/** The keys {@link write} gives, in order, and what the target had no place for. */
export interface Written {
  readonly entries: ReadonlyArray<readonly [string, unknown]>
  readonly problems: ReadonlyArray<Problem>
}

/** Where each setting came from, for problems about it. */
export interface Origins {
  readonly tools: Path
  readonly choice: Path
  readonly parallel: Path
}

const emptyObjectSchema: Json.JsonObject = { type: "object", properties: {} }

const withDescription = (tool: Tool): { description?: string } =>
  tool.description === "" ? {} : { description: tool.description }

const writeChat = (settings: Settings) => {
  const entries: Array<readonly [string, unknown]> = []
  if (settings.tools !== undefined) {
    entries.push([
      "tools",
      settings.tools.map((tool) => ({
        type: "function",
        function: {
          name: tool.name,
          ...withDescription(tool),
          ...(tool.input_schema === null ? {} : { parameters: tool.input_schema }),
          ...(tool.strict === undefined ? {} : { strict: tool.strict })
        }
      }))
    ])
  }
  const choice = settings.choice
  if (choice !== undefined) {
    entries.push([
      "tool_choice",
      choice.names === undefined || choice.mode === "none"
        ? choice.mode
        : choice.names.length === 1 && choice.mode === "required"
        ? { type: "function", function: { name: choice.names[0] } }
        : {
          type: "allowed_tools",
          allowed_tools: {
            mode: choice.mode,
            tools: choice.names.map((name) => ({ type: "function", function: { name } }))
          }
        }
    ])
  }
  if (settings.parallel !== undefined) entries.push(["parallel_tool_calls", settings.parallel])
  return entries
}

const writeResponses = (settings: Settings) => {
  const entries: Array<readonly [string, unknown]> = []
  if (settings.tools !== undefined) {
    entries.push([
      "tools",
      settings.tools.map((tool) => ({
        type: "function",
        name: tool.name,
        ...withDescription(tool),
        parameters: tool.input_schema,
        // the Responses API makes a function tool strict unless told otherwise; the other formats do not
        strict: tool.strict ?? false
      }))
    ])
  }
  const choice = settings.choice
  if (choice !== undefined) {
    entries.push([
      "tool_choice",
      choice.names === undefined || choice.mode === "none"
        ? choice.mode
        : choice.names.length === 1 && choice.mode === "required"
        ? { type: "function", name: choice.names[0] }
        : { type: "allowed_tools", mode: choice.mode, tools: choice.names.map((name) => ({ type: "function", name })) }
    ])
  }
  if (settings.parallel !== undefined) entries.push(["parallel_tool_calls", settings.parallel])
  return entries
}

const writeAnthropic = (settings: Settings, origins: Origins, problems: Array<Problem>) => {
  const entries: Array<readonly [string, unknown]> = []
  if (settings.tools !== undefined) {
    const tools: Array<unknown> = []
    settings.tools.forEach((tool, i) => {
      const type = tool.input_schema?.["type"]
      if (type !== undefined && type !== "object") {
        problems.push({
          path: [...origins.tools, i],
          parameter: "tools",
          reason: `the schema of tool ${JSON.stringify(tool.name)} has type ${
            JSON.stringify(type)
          }; the Messages API takes object schemas only`
        })
        return
      }
      tools.push({
        name: tool.name,
        ...withDescription(tool),
        input_schema: tool.input_schema ?? emptyObjectSchema,
        ...(tool.strict === undefined ? {} : { strict: tool.strict })
      })
    })
    entries.push(["tools", tools])
  }
  const choice = settings.choice
  let out: Record<string, unknown> | undefined
  if (choice !== undefined) {
    if (choice.names === undefined || choice.mode === "none") {
      out = { type: choice.mode === "required" ? "any" : choice.mode }
    } else if (choice.names.length === 1 && choice.mode === "required") out = { type: "tool", name: choice.names[0] }
    else {
      problems.push({
        path: origins.choice,
        parameter: "tool_choice",
        reason: `the Messages API can force one tool or any tool, not limit the choice to ${
          choice.names.length === 1 ? "one tool the model may skip" : `${choice.names.length} of them`
        }`
      })
    }
  }
  if (settings.parallel === false) out = { ...(out ?? { type: "auto" }), disable_parallel_tool_use: true }
  if (out !== undefined) entries.push(["tool_choice", out])
  return entries
}

const writeGoogle = (settings: Settings, origins: Origins, problems: Array<Problem>, casing: "snake" | "camel") => {
  const entries: Array<readonly [string, unknown]> = []
  const camel = casing === "camel"
  if (settings.tools !== undefined) {
    settings.tools.forEach((tool, i) => {
      if (tool.strict === true) {
        problems.push({
          path: [...origins.tools, i],
          parameter: "strict",
          reason: `tool ${JSON.stringify(tool.name)} is strict; Gemini function declarations have no strict mode`
        })
      }
    })
    const declarations = settings.tools.map((tool) => ({
      name: tool.name,
      ...withDescription(tool),
      ...(tool.input_schema === null
        ? {}
        : { [camel ? "parametersJsonSchema" : "parameters_json_schema"]: tool.input_schema })
    }))
    entries.push([
      "tools",
      declarations.length === 0 ? [] : [{ [camel ? "functionDeclarations" : "function_declarations"]: declarations }]
    ])
  }
  const choice = settings.choice
  if (choice !== undefined) {
    const mode = choice.mode === "required" ? "ANY" : choice.mode === "none" ? "NONE" : "AUTO"
    const names = choice.names === undefined || choice.mode === "none"
      ? {}
      : { [camel ? "allowedFunctionNames" : "allowed_function_names"]: choice.names }
    entries.push([
      camel ? "toolConfig" : "tool_config",
      { [camel ? "functionCallingConfig" : "function_calling_config"]: { mode, ...names } }
    ])
  }
  if (settings.parallel === false) {
    problems.push({
      path: origins.parallel,
      parameter: "parallel_tool_calls",
      reason: "Gemini has no setting that turns parallel function calls off"
    })
  }
  return entries
}

/** LLaMA-Factory's `tools`: JSON text of `{name, description, parameters}`; no choice, no parallel setting. */
const writeShareGpt = (settings: Settings, origins: Origins, problems: Array<Problem>) => {
  const entries: Array<readonly [string, unknown]> = []
  if (settings.tools !== undefined && settings.tools.length > 0) {
    settings.tools.forEach((tool, i) => {
      if (tool.strict === true) {
        problems.push({
          path: [...origins.tools, i],
          parameter: "strict",
          reason: `tool ${JSON.stringify(tool.name)} is strict; a ShareGPT tool has no strict mode`
        })
      }
    })
    entries.push([
      "tools",
      JSON.stringify(settings.tools.map((tool) => ({
        name: tool.name,
        ...withDescription(tool),
        ...(tool.input_schema === null ? {} : { parameters: tool.input_schema })
      })))
    ])
  }
  unheld(
    {
      ...(settings.choice === undefined ? {} : { choice: settings.choice }),
      ...(settings.parallel === undefined ? {} : { parallel: settings.parallel })
    },
    origins,
    problems,
    "a ShareGPT record has tools only: no tool choice, no parallel-call setting"
  )
  return entries
}

const writeCanonical = (settings: Settings) => {
  const entries: Array<readonly [string, unknown]> = []
  if (settings.tools !== undefined) {
    entries.push([
      "tools",
      settings.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.input_schema,
        ...(tool.strict === undefined ? {} : { strict: tool.strict })
      }))
    ])
  }
  if (settings.choice !== undefined) entries.push(["tool_choice", settings.choice])
  if (settings.parallel !== undefined) entries.push(["parallel_tool_calls", settings.parallel])
  return entries
}

/** `settings` in `target`'s request shape; what the target has no place for is a problem. */
export const write = (target: Target, settings: Settings, origins: Origins, options?: WriteOptions): Written => {
  const problems: Array<Problem> = []
  let entries: ReadonlyArray<readonly [string, unknown]>
  switch (target) {
    case "openai":
    case "openrouter":
      entries = writeChat(settings)
      break
    case "openai-responses":
      entries = writeResponses(settings)
      break
    case "anthropic":
      entries = writeAnthropic(settings, origins, problems)
      break
    case "google":
      entries = writeGoogle(settings, origins, problems, options?.casing ?? "snake")
      break
    case "sharegpt":
      entries = writeShareGpt(settings, origins, problems)
      break
    case "canonical":
      entries = writeCanonical(settings)
      break
    case "prompt":
      entries = []
      unheld(settings, origins, problems, "the /prompt flattening has no tool settings")
  }
  return { entries, problems }
}

/** Every setting of `settings` as a problem, for a target that holds none of them. */
export const unheld = (settings: Settings, origins: Origins, problems: Array<Problem>, reason: string): void => {
  if (settings.tools !== undefined && settings.tools.length > 0) {
    problems.push({ path: origins.tools, parameter: "tools", reason })
  }
  if (settings.choice !== undefined) problems.push({ path: origins.choice, parameter: "tool_choice", reason })
  if (settings.parallel !== undefined) {
    problems.push({ path: origins.parallel, parameter: "parallel_tool_calls", reason })
  }
}
