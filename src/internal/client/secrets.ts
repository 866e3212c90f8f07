/**
 * The `X-Secrets` header: base64 of the JSON `{key: {"value", "allowed_domains"}}`, written as the
 * reference SDK writes it (`openreward/api/sandboxes/secrets.py`).
 *
 * The reference also passes the client's API key to every session as the secrets `api_key` and
 * `OPENREWARD_API_KEY`, allowed to reach the OpenReward hosts, so environments can call OpenReward
 * services; this does the same.
 *
 * @internal
 */
import * as Encoding from "effect/Encoding"
import { dumps } from "../pythonJson.js"

/** A secret with the domains it may be sent to (enforced by the hosted platform's egress proxy). */
export interface Secret {
  readonly value: string
  readonly allowedDomains: ReadonlyArray<string>
}

/** The domains each well-known secret may reach, as the reference lists them. */
const wellKnown: { readonly [key: string]: ReadonlyArray<string> } = (() => {
  const table: Record<string, ReadonlyArray<string>> = {
    OPENAI_API_KEY: ["api.openai.com"],
    ANTHROPIC_API_KEY: ["api.anthropic.com"],
    GEMINI_API_KEY: ["generativelanguage.googleapis.com"],
    TAVILY_API_KEY: ["api.tavily.com"],
    GOOGLE_API_KEY: ["generativelanguage.googleapis.com"],
    COHERE_API_KEY: ["api.cohere.com"],
    MISTRAL_API_KEY: ["api.mistral.ai"],
    GROQ_API_KEY: ["api.groq.com"],
    TOGETHER_API_KEY: ["api.together.xyz"],
    REPLICATE_API_TOKEN: ["api.replicate.com"],
    HUGGINGFACE_API_KEY: ["api-inference.huggingface.co", "huggingface.co"],
    HF_TOKEN: ["huggingface.co", "api-inference.huggingface.co"],
    HUGGING_FACE_HUB_TOKEN: ["huggingface.co", "api-inference.huggingface.co"],
    PERPLEXITY_API_KEY: ["api.perplexity.ai"],
    FIREWORKS_API_KEY: ["api.fireworks.ai"],
    DEEPSEEK_API_KEY: ["api.deepseek.com"],
    KAGGLE_KEY: ["www.kaggle.com"],
    KAGGLE_USERNAME: ["www.kaggle.com"],
    KAGGLE_API_KEY: ["www.kaggle.com"],
    E2B_API_KEY: ["api.e2b.app"],
    MODAL_TOKEN_ID: ["api.modal.com"],
    MODAL_TOKEN_SECRET: ["api.modal.com"],
    DAYTONA_API_KEY: ["app.daytona.io"]
  }
  // The reference accepts the lower-case spelling of each name too.
  for (const [key, domains] of Object.entries(table)) table[key.toLowerCase()] = domains
  table.gh_auth_token = [
    "github.com",
    "api.github.com",
    "uploads.github.com",
    "objects.githubusercontent.com",
    "raw.githubusercontent.com"
  ]
  return table
})()

/** The domains a plain-string secret may reach: the well-known list, or none for other names. */
export const domainsOf = (key: string): ReadonlyArray<string> => Object.hasOwn(wellKnown, key) ? wellKnown[key]! : []

const hostOf = (url: string): string | undefined => {
  try {
    const host = new URL(url).hostname
    return host === "" ? undefined : host
  } catch {
    return undefined
  }
}

/** `sessions.openreward.ai` → `sessions.openreward.internal`, as the reference derives cluster hosts. */
const internalHost = (host: string): string | undefined => {
  const parts = host.split(".")
  return parts.length >= 3 ? `${parts[0]}.openreward.internal` : undefined
}

/** The hosts the API key may reach: the session and API hosts, the OpenReward services, and their cluster names. */
export const apiKeyDomains = (urls: ReadonlyArray<string | undefined>, serviceHosts: ReadonlyArray<string>) => {
  const hosts: Array<string> = []
  for (const url of urls) {
    const host = url === undefined ? undefined : hostOf(url)
    if (host !== undefined) hosts.push(host)
  }
  for (const host of serviceHosts) if (!hosts.includes(host)) hosts.push(host)
  return [...hosts, ...hosts.flatMap((h) => internalHost(h) ?? [])]
}

/** The header value. */
export const header = (secrets: ReadonlyArray<readonly [string, Secret]>): string => {
  const payload = Object.fromEntries(
    secrets.map(([key, secret]) => [key, { value: secret.value, allowed_domains: secret.allowedDomains }])
  )
  return Encoding.encodeBase64(dumps(payload))
}
