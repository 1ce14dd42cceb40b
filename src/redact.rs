//! Keeping secrets out of what fathom writes and prints: configured key values, `Bearer` tokens
//! and `authorization` values are replaced with `[redacted]` in session lines, in server error
//! bodies (which some servers echo the key into) and so in logs and messages.

use std::borrow::Cow;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are ignored: replacing a short common string would mangle text.
pub const MIN_SECRET_LEN: usize = 8;

/// Bearer tokens shorter than this are taken for prose ("bearer bonds"), not credentials.
const MIN_TOKEN_LEN: usize = 8;

/// Environment variables whose values are secrets.
pub const SECRET_ENV_VARS: [&str; 2] = ["FATHOM_API_KEY", "OPENAI_API_KEY"];

/// The values of the API-key environment variables that are set and non-empty.
pub fn secrets_from_env() -> Vec<String> {
    SECRET_ENV_VARS
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// `text` with every secret value (of at least [`MIN_SECRET_LEN`] characters), every
/// `Bearer <token>` and every `"authorization": "<value>"` replaced by `[redacted]`.
/// Borrowed when nothing needed replacing.
pub fn redact<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for secret in secrets
        .iter()
        .filter(|s| s.chars().count() >= MIN_SECRET_LEN)
    {
        replace_all(&mut out, secret);
        // Inside a JSON line a secret with quotes or backslashes appears escaped.
        if let Ok(quoted) = serde_json::to_string(secret) {
            let escaped = &quoted[1..quoted.len() - 1];
            if escaped != secret {
                replace_all(&mut out, escaped);
            }
        }
    }
    if let Some(s) = redact_bearer(&out) {
        out = Cow::Owned(s);
    }
    if let Some(s) = redact_authorization(&out) {
        out = Cow::Owned(s);
    }
    out
}

fn replace_all(text: &mut Cow<'_, str>, needle: &str) {
    if text.contains(needle) {
        *text = Cow::Owned(text.replace(needle, REDACTED));
    }
}

/// Characters of a bearer token (RFC 6750's b64token, plus `%` seen in URL-encoded keys).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/=%".contains(c)
}

/// `Bearer <token>` → `Bearer [redacted]` (any case of "bearer"). The token must look like a
/// credential: long enough and not a plain lowercase word, so prose survives.
fn redact_bearer(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(pos) = lower[from..].find("bearer") {
        let start = from + pos;
        let after_word = start + "bearer".len();
        from = after_word;
        // A whole word: not the end of "cobearer" or similar.
        let word_start = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let gap = text[after_word..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .count();
        if !word_start || gap == 0 {
            continue;
        }
        let token_start = after_word + gap;
        let token_len: usize = text[token_start..]
            .chars()
            .take_while(|c| is_token_char(*c))
            .map(char::len_utf8)
            .sum();
        let token = &text[token_start..token_start + token_len];
        let looks_like_key = token.chars().count() >= MIN_TOKEN_LEN
            && token.chars().any(|c| !c.is_ascii_lowercase());
        if !looks_like_key || token == REDACTED {
            continue;
        }
        out.push_str(&text[copied..token_start]);
        out.push_str(REDACTED);
        copied = token_start + token_len;
        from = copied;
    }
    (copied > 0).then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// `"authorization": "<value>"` → `"authorization": "[redacted]"`, both as a JSON key and as
/// escaped text inside a JSON string (`\"authorization\": \"...\"`).
fn redact_authorization(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let key = "authorization";
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(pos) = lower[from..].find(key) {
        let after_key = from + pos + key.len();
        from = after_key;
        let rest = &text[after_key..];
        // The closing quote of the key: `"` or, inside a JSON string, `\"`.
        let (quote, rest) = if let Some(r) = rest.strip_prefix("\\\"") {
            ("\\\"", r)
        } else if let Some(r) = rest.strip_prefix('"') {
            ("\"", r)
        } else {
            continue;
        };
        let trimmed = rest.trim_start();
        let Some(after_colon) = trimmed.strip_prefix(':') else {
            continue;
        };
        let value_part = after_colon.trim_start();
        let Some(value) = value_part.strip_prefix(quote) else {
            continue;
        };
        let value_start = text.len() - value.len();
        let Some(value_len) = quoted_value_len(value, quote) else {
            continue;
        };
        if &text[value_start..value_start + value_len] == REDACTED {
            continue;
        }
        out.push_str(&text[copied..value_start]);
        out.push_str(REDACTED);
        copied = value_start + value_len;
        from = copied;
    }
    (copied > 0).then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// Length of a quoted value up to its closing quote, skipping escaped characters; `None` when
/// the value never closes (a cut line: leave it for the other rules). With `quote` = `\"` the
/// value is text inside a JSON string, so it is read through one level of JSON escapes first.
fn quoted_value_len(value: &str, quote: &str) -> Option<usize> {
    let nested = quote != "\"";
    let mut escaped = false;
    let mut i = 0;
    while i < value.len() {
        let rest = &value[i..];
        // One unit of the text and the character it stands for at the value's own level.
        let (c, len) = if nested && rest.starts_with('\\') {
            match rest[1..].chars().next() {
                Some(e @ ('\\' | '"')) => (e, 2),
                Some(e) => ('x', 1 + e.len_utf8()),
                None => return None,
            }
        } else {
            let c = rest.chars().next()?;
            (c, c.len_utf8())
        };
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
        i += len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Vec<String> {
        vec!["sk-test-SECRET-1234567890".to_string(), "short".to_string()]
    }

    #[test]
    fn configured_secrets_are_replaced_everywhere() {
        let s = secrets();
        let text = "key sk-test-SECRET-1234567890 and again sk-test-SECRET-1234567890.";
        assert_eq!(redact(text, &s), "key [redacted] and again [redacted].");
        // Short secrets are ignored: they would match ordinary words.
        assert_eq!(redact("a short note", &s), "a short note");
        assert!(matches!(redact("nothing here", &s), Cow::Borrowed(_)));
    }

    #[test]
    fn json_escaped_secrets_are_replaced() {
        let secret = "pa\"ss\\word-123".to_string();
        let line = serde_json::to_string(&serde_json::json!({ "k": secret })).unwrap();
        let out = redact(&line, std::slice::from_ref(&secret));
        assert_eq!(out, r#"{"k":"[redacted]"}"#);
    }

    #[test]
    fn bearer_tokens_are_replaced_but_prose_is_not() {
        assert_eq!(
            redact("Authorization: Bearer sk-test-SECRET-1234567890\nnext", &[]),
            "Authorization: Bearer [redacted]\nnext"
        );
        assert_eq!(
            redact("header bearer eyJhbGciOi.J9.abc and more", &[]),
            "header bearer [redacted] and more"
        );
        // Inside a JSON line the token stops at the escape of a newline.
        assert_eq!(
            redact(r#"{"a":"Bearer abcdEFGH1234\nx"}"#, &[]),
            r#"{"a":"Bearer [redacted]\nx"}"#
        );
        for prose in [
            "the bearer bonds matured",
            "bearer securities were issued",
            "Bearer of bad news",
            "cobearer ABCDEFGH12345",
        ] {
            assert_eq!(redact(prose, &[]), prose);
        }
    }

    #[test]
    fn authorization_values_are_replaced() {
        let line = r#"{"headers":{"Authorization": "Basic dXNlcjpwYXNz", "x": "y"}}"#;
        assert_eq!(
            redact(line, &[]),
            r#"{"headers":{"Authorization": "[redacted]", "x": "y"}}"#
        );
        let nested = serde_json::to_string(&serde_json::json!({
            "answer": "sent {\"authorization\":\"token abc\\\"def\"} to the server"
        }))
        .unwrap();
        let out = redact(&nested, &[]);
        assert!(!out.contains("token abc"), "{out}");
        assert!(out.contains(r#"\"authorization\":\"[redacted]\""#), "{out}");
        // Still valid JSON after redaction.
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
        assert_eq!(
            redact("authorization was granted", &[]),
            "authorization was granted"
        );
    }

    use proptest::prelude::*;

    const SECRET: &str = "sk-prop-SECRET-0123456789";

    /// Text mixing prose with the secret, bearer tokens and authorization fields.
    fn risky_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => "[^\\p{Cc}]{0,12}",
            1 => Just(SECRET.to_string()),
            1 => Just(format!("Bearer {SECRET}")),
            1 => "Bearer [A-Za-z0-9._~+/=-]{0,20}",
            1 => Just("bearer bonds".to_string()),
            1 => Just(format!("{{\"authorization\": \"{SECRET}\"}}")),
            1 => Just("\"Authorization\":\"Basic dXNlcjpwYXNz\"".to_string()),
            1 => Just("\\\"".to_string()),
        ];
        proptest::collection::vec(piece, 0..12).prop_map(|p| p.concat())
    }

    /// JSON values holding such text in keys and values, nested.
    fn risky_json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            risky_text().prop_map(serde_json::Value::String),
            any::<i64>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                proptest::collection::btree_map(risky_text(), inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn redacted_json_is_json_without_the_secret_and_stable(value in risky_json()) {
            let secrets = vec![SECRET.to_string()];
            let line = serde_json::to_string(&value).unwrap();
            let once = redact(&line, &secrets).into_owned();
            prop_assert!(
                serde_json::from_str::<serde_json::Value>(&once).is_ok(),
                "not JSON any more: {}", once
            );
            prop_assert!(!once.contains(SECRET), "{}", once);
            prop_assert_eq!(redact(&once, &secrets), once.as_str());
        }

        #[test]
        fn redacted_text_has_no_secret_and_is_stable(text in risky_text()) {
            let secrets = vec![SECRET.to_string()];
            let once = redact(&text, &secrets).into_owned();
            prop_assert!(!once.contains(SECRET));
            prop_assert_eq!(redact(&once, &secrets), once.as_str());
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        let s = secrets();
        let text = "Bearer sk-test-SECRET-1234567890 {\"authorization\": \"abc\"}";
        let once = redact(text, &s).into_owned();
        assert_eq!(redact(&once, &s), once);
        assert!(!once.contains("SECRET"));
    }
}
