/**
 * The registry: where the codec of every format is, by name, imported when it is first asked for.
 * `Format.load` is this function, and the command line reads it to import only the codecs a
 * command names (its start-up time: docs/performance.md, "CLI"). `Format` itself imports every
 * format statically; a test holds the two to the same values.
 *
 * @internal
 */
import type * as Format from "../Format.js"

const loaders: { readonly [N in Format.Target]: () => Promise<Format.Encoders[N]> } = {
  openai: () => import("../OpenAiFormat.js").then((m) => m.codec),
  openrouter: () => import("../OpenRouterFormat.js").then((m) => m.codec),
  anthropic: () => import("../AnthropicFormat.js").then((m) => m.codec),
  google: () => import("../GoogleFormat.js").then((m) => m.codec),
  "openai-responses": () => import("../OpenAiResponsesFormat.js").then((m) => m.codec),
  sharegpt: () => import("../ShareGptFormat.js").then((m) => m.codec),
  canonical: () => import("../Conversation.js").then((m) => m.codec),
  prompt: () => import("../Prompt.js").then((m) => m.encoder)
}

/** The codec (or, for `prompt`, the encoder) of the format `name`, imported on first use. */
export const load = <N extends Format.Target>(name: N): Promise<Format.Encoders[N]> =>
  Object.prototype.hasOwnProperty.call(loaders, name)
    ? loaders[name]()
    : Promise.reject(new TypeError(`no format is named ${JSON.stringify(name)}`))
