//! Showing the synthesis answer while its JSON object is still arriving.
//!
//! The model streams `{"session_id": ..., "answer": "...", "citations": [...]}` in arbitrary
//! pieces. [`AnswerFieldStream`] follows just enough of the JSON grammar (nesting, strings,
//! escapes) to find the value of the top-level `"answer"` key and decode it incrementally. It
//! never fails: malformed input is the validator's business, the UI only needs best-effort text.

/// Decodes one JSON string body, one char at a time, across delta boundaries.
#[derive(Debug, Clone, Default)]
struct StringDecoder {
    escape: Escape,
    /// A high surrogate waiting for its low half (`\uD83D` then `\uDE00`).
    high: Option<u32>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Escape {
    #[default]
    None,
    /// Just after a backslash.
    Backslash,
    /// Inside `\uXXXX`: how many hex digits so far and their value.
    Unicode { digits: u8, value: u32 },
}

impl StringDecoder {
    /// Feeds one char of the string body; decoded text goes to `out`. Returns true on the
    /// closing quote.
    fn feed(&mut self, c: char, out: &mut String) -> bool {
        match self.escape {
            Escape::None => match c {
                '"' => {
                    self.flush_high(out);
                    return true;
                }
                '\\' => self.escape = Escape::Backslash,
                _ => self.unit(c as u32, out),
            },
            Escape::Backslash => {
                self.escape = Escape::None;
                let decoded = match c {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'u' => {
                        self.escape = Escape::Unicode {
                            digits: 0,
                            value: 0,
                        };
                        return false;
                    }
                    // `\"`, `\\`, `\/`; an invalid escape keeps its char rather than losing it.
                    other => other,
                };
                self.unit(decoded as u32, out);
            }
            Escape::Unicode { digits, value } => {
                let Some(d) = c.to_digit(16) else {
                    // Not hex: give up on the escape, keep the char.
                    self.escape = Escape::None;
                    self.unit(char::REPLACEMENT_CHARACTER as u32, out);
                    return self.feed(c, out);
                };
                let value = value * 16 + d;
                if digits + 1 == 4 {
                    self.escape = Escape::None;
                    self.unit(value, out);
                } else {
                    self.escape = Escape::Unicode {
                        digits: digits + 1,
                        value,
                    };
                }
            }
        }
        false
    }

    /// One UTF-16 code unit or whole scalar value; pairs surrogates.
    fn unit(&mut self, u: u32, out: &mut String) {
        match u {
            0xD800..=0xDBFF => {
                self.flush_high(out);
                self.high = Some(u);
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some(h) => {
                    let scalar = 0x10000 + ((h - 0xD800) << 10) + (u - 0xDC00);
                    out.push(char::from_u32(scalar).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => out.push(char::REPLACEMENT_CHARACTER),
            },
            _ => {
                self.flush_high(out);
                out.push(char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    /// A high surrogate with no low half after it is shown as U+FFFD.
    fn flush_high(&mut self, out: &mut String) {
        if self.high.take().is_some() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }
}

/// Which string is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringRole {
    /// A key of the top-level object: captured to know which value follows.
    Key,
    /// The top-level `"answer"` value: decoded and emitted.
    Answer,
    /// Any other string: decoded and dropped (so `\"` inside it cannot end it early).
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the opening `{` (a code fence may come first).
    BeforeObject,
    /// Between tokens inside the object.
    Structure,
    InString(StringRole),
    /// The answer string closed, or the top-level object did: nothing more is emitted.
    Done,
}

/// Incrementally extracts the top-level `"answer"` string from a streamed JSON object.
#[derive(Debug, Clone)]
pub struct AnswerFieldStream {
    phase: Phase,
    /// Nesting of `{`/`[` outside strings; 1 = inside the top-level object.
    depth: u32,
    /// At depth 1, the next string is a key (after `{` or `,`), not a value.
    expect_key: bool,
    /// The last top-level key read.
    key: String,
    /// The `:` after a top-level `"answer"` key was seen and its value has not started.
    answer_value_next: bool,
    decoder: StringDecoder,
}

impl Default for AnswerFieldStream {
    fn default() -> Self {
        AnswerFieldStream::new()
    }
}

impl AnswerFieldStream {
    pub fn new() -> AnswerFieldStream {
        AnswerFieldStream {
            phase: Phase::BeforeObject,
            depth: 0,
            expect_key: false,
            key: String::new(),
            answer_value_next: false,
            decoder: StringDecoder::default(),
        }
    }

    /// Feeds the next piece of the reply text; returns the answer characters it completed.
    pub fn push(&mut self, delta: &str) -> String {
        let mut out = String::new();
        for c in delta.chars() {
            self.step(c, &mut out);
        }
        out
    }

    /// True once the answer string has closed (or the object ended without one).
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    fn step(&mut self, c: char, out: &mut String) {
        match self.phase {
            Phase::Done => {}
            Phase::BeforeObject => {
                if c == '{' {
                    self.depth = 1;
                    self.expect_key = true;
                    self.phase = Phase::Structure;
                }
            }
            Phase::InString(role) => {
                let closed = match role {
                    StringRole::Key => self.decoder.feed(c, &mut self.key),
                    StringRole::Answer => self.decoder.feed(c, out),
                    StringRole::Skip => self.decoder.feed(c, &mut String::new()),
                };
                if closed {
                    self.phase = if role == StringRole::Answer {
                        Phase::Done
                    } else {
                        Phase::Structure
                    };
                }
            }
            Phase::Structure => self.structure(c),
        }
    }

    fn structure(&mut self, c: char) {
        let top = self.depth == 1;
        match c {
            '"' => {
                let role = if top && self.expect_key {
                    self.key.clear();
                    StringRole::Key
                } else if top && self.answer_value_next {
                    StringRole::Answer
                } else {
                    StringRole::Skip
                };
                self.answer_value_next = false;
                self.decoder = StringDecoder::default();
                self.phase = Phase::InString(role);
            }
            '{' | '[' => {
                self.depth += 1;
                self.answer_value_next = false;
            }
            '}' | ']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.phase = Phase::Done;
                }
            }
            ':' if top => {
                self.expect_key = false;
                self.answer_value_next = self.key == "answer";
            }
            ',' if top => {
                self.expect_key = true;
                self.answer_value_next = false;
            }
            c if top && !c.is_whitespace() => {
                // A non-string value (`null`, a number): the answer is not a string.
                self.answer_value_next = false;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn feed_all(pieces: &[&str]) -> String {
        let mut s = AnswerFieldStream::new();
        pieces.iter().map(|p| s.push(p)).collect()
    }

    #[test]
    fn emits_the_answer_as_it_arrives() {
        let mut s = AnswerFieldStream::new();
        assert_eq!(s.push("{\"session_id\":\"s\",\"ans"), "");
        assert_eq!(s.push("wer\": \"Hel"), "Hel");
        assert_eq!(s.push("lo\\"), "lo");
        assert_eq!(s.push("nwor"), "\nwor");
        assert_eq!(
            s.push("ld\", \"citations\": [], \"answer\": \"again\"}"),
            "ld"
        );
        assert!(s.is_done());
        assert_eq!(s.push("\"answer\": \"more\""), "");
    }

    #[test]
    fn decodes_escapes_split_anywhere() {
        let raw = r#"{"answer":"q\"b\\s\/\u00e9\ud83d\ude00\t!"}"#;
        let want = "q\"b\\s/é😀\t!";
        for cut in 0..=raw.len() {
            let (a, b) = raw.split_at(cut);
            assert_eq!(feed_all(&[a, b]), want, "cut at {cut}");
        }
        let one_by_one: Vec<String> = raw.chars().map(String::from).collect();
        let refs: Vec<&str> = one_by_one.iter().map(String::as_str).collect();
        assert_eq!(feed_all(&refs), want);
    }

    #[test]
    fn ignores_answer_keys_that_are_not_top_level() {
        let raw = r#"{"meta": {"answer": "nested"}, "more": {"x": 1, "answer": "deeper"}, "note": "\"answer\": \"in a string\"",
            "list": [{"answer": "in a list"}], "answer": "real", "z": {"answer": "late"}}"#;
        assert_eq!(feed_all(&[raw]), "real");
        // A string value that equals "answer" is not a key.
        assert_eq!(
            feed_all(&[r#"{"k": "answer", "x": "no", "answer": "yes"}"#]),
            "yes"
        );
    }

    #[test]
    fn a_code_fence_before_the_object_is_skipped() {
        assert_eq!(feed_all(&["```json\n{\"answer\"", ":\"ok\"}\n```"]), "ok");
    }

    #[test]
    fn a_null_answer_emits_nothing() {
        assert_eq!(feed_all(&[r#"{"answer": null, "b": "text"}"#]), "");
    }

    #[test]
    fn lone_surrogates_become_replacement_chars() {
        assert_eq!(
            feed_all(&[r#"{"answer":"a\ud83db\ude00"}"#]),
            "a\u{fffd}b\u{fffd}"
        );
    }

    /// JSON text of `s` with every non-ASCII char escaped as `\uXXXX` (UTF-16, so emoji become
    /// surrogate pairs): serde_json never writes those, but servers do.
    fn ascii_json_string(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
                c => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{u:04x}"));
                    }
                }
            }
        }
        out.push('"');
        out
    }

    fn split_at_chars(text: &str, cuts: &[usize]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
        points.push(0);
        points.push(chars.len());
        points.sort_unstable();
        points
            .windows(2)
            .map(|w| chars[w[0]..w[1]].iter().collect())
            .collect()
    }

    proptest! {
        #[test]
        fn random_splits_yield_exactly_the_answer(
            answer in "([a-zA-Z0-9 .,\\[\\]{}:]|\"|\\\\|\n|\t|é|ß|中|文|😀|🦀|\u{1}){0,40}",
            cuts in proptest::collection::vec(0usize..400, 0..12),
            ascii in any::<bool>(),
        ) {
            let serialized = if ascii {
                format!(
                    "{{\"session_id\":\"sess_1\",\"response_id\":\"r\\\"answer\\\"\",\"answer\":{},\"citations\":[{{\"n\":1,\"chunk_id\":\"c1\"}}]}}",
                    ascii_json_string(&answer)
                )
            } else {
                json!({
                    "session_id": "sess_1",
                    "response_id": "answer",
                    "answer": answer,
                    "citations": [{"n": 1, "chunk_id": "c1"}],
                })
                .to_string()
            };
            let mut s = AnswerFieldStream::new();
            let got: String = split_at_chars(&serialized, &cuts)
                .iter()
                .map(|p| s.push(p))
                .collect();
            prop_assert_eq!(got, answer);
            prop_assert!(s.is_done());
        }
    }
}
