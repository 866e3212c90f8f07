/**
 * Image data as the canonical model holds it: standard base64 (RFC 4648 section 4). Data written in
 * the URL-safe alphabet (section 5: `-` and `_` for `+` and `/`, padding often left out), as
 * Google's Python SDK records Gemini's `inline_data`, is rewritten to it on every decode surface;
 * otherwise every encoder would write a `data:` URL or a base64 `source` the APIs reject.
 *
 * Only data that is entirely base64url, holds a `-` or `_`, and has a valid length is rewritten;
 * anything else (standard base64 included) is returned as it is, unchanged and uncopied.
 *
 * @internal
 */

const urlSafe = /^[A-Za-z0-9_-]*={0,2}$/

/** `data` in standard base64 when it is base64url; `data` itself otherwise. */
export const standard = (data: string): string => {
  if (data.indexOf("-") === -1 && data.indexOf("_") === -1) return data
  if (!urlSafe.test(data)) return data
  let end = data.length
  while (end > 0 && data.charCodeAt(end - 1) === 61) end--
  const rest = end % 4
  if (rest === 1) return data
  const body = data.slice(0, end).replace(/-/g, "+").replace(/_/g, "/")
  return rest === 0 ? body : body + (rest === 2 ? "==" : "=")
}
