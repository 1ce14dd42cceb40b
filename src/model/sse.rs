//! An incremental parser for `text/event-stream` bodies (server-sent events), as streamed by
//! OpenAI-compatible chat servers.
//!
//! Network chunks split the stream anywhere — inside a line, inside a CRLF pair, inside a UTF-8
//! character — so the parser keeps raw bytes until a whole line is in and decodes only then.

/// One dispatched event: its `data:` lines joined with `\n`, and its `event:` name if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// A line longer than this without a newline is not an event stream (or a broken one); stop
/// rather than buffer without bound.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// The parse failed: the stream is not a usable event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SseError(pub String);

/// Feeds bytes in, gets whole events out.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// `data:` lines of the event being built.
    data: Vec<String>,
    event: Option<String>,
    /// Whether any field line was seen for the pending event (a `data:` line may be empty).
    pending: bool,
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// Consumes one network chunk and returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            let mut line = std::mem::take(&mut self.line);
            // CRLF line endings: the CR may have come in the previous chunk, which is why it is
            // stripped only once the whole line is in.
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.line_done(&line, &mut out)?;
        }
        self.line.extend_from_slice(rest);
        if self.line.len() > MAX_LINE_BYTES {
            return Err(SseError(format!(
                "an event-stream line is longer than {MAX_LINE_BYTES} bytes"
            )));
        }
        Ok(out)
    }

    /// The stream ended: returns the event still pending (a server that closes right after its
    /// last `data:` line without the blank line that should end it).
    pub fn finish(&mut self) -> Result<Option<SseEvent>, SseError> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.line_done(&line, &mut out)?;
        }
        self.dispatch(&mut out);
        Ok(out.pop())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        // Comments (": keep-alive", ": OPENROUTER PROCESSING") keep idle connections open.
        if line[0] == b':' {
            return Ok(());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| SseError("an event-stream line is not valid UTF-8".into()))?;
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push(value.to_string());
                self.pending = true;
            }
            "event" => {
                self.event = Some(value.to_string());
                self.pending = true;
            }
            // `id` and `retry` matter for browsers reconnecting; a completion is not resumable.
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if !self.pending {
            return;
        }
        self.pending = false;
        let event = self.event.take();
        if self.data.is_empty() {
            // An event with no data is ignored, as in the spec.
            return;
        }
        out.push(SseEvent {
            event,
            data: std::mem::take(&mut self.data).join("\n"),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.push(c).unwrap());
        }
        out.extend(p.finish().unwrap());
        out
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    const SAMPLE: &str = ": keep-alive\r\n\r\ndata: {\"a\":\"é😀\"}\r\n\r\nevent: note\ndata: x\ndata: y\n\ndata:[DONE]\n\n";

    #[test]
    fn parses_events_comments_and_crlf() {
        let events = parse_all(&[SAMPLE.as_bytes()]);
        assert_eq!(data(&events), ["{\"a\":\"é😀\"}", "x\ny", "[DONE]"]);
        assert_eq!(events[1].event.as_deref(), Some("note"));
        assert_eq!(events[0].event, None);
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let whole = parse_all(&[SAMPLE.as_bytes()]);
        let bytes = SAMPLE.as_bytes();
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let split = parse_all(&[&bytes[..i], &bytes[i..j], &bytes[j..]]);
                assert_eq!(split, whole, "split at {i},{j}");
            }
        }
    }

    #[test]
    fn byte_at_a_time() {
        let chunks: Vec<&[u8]> = SAMPLE.as_bytes().chunks(1).collect();
        assert_eq!(parse_all(&chunks), parse_all(&[SAMPLE.as_bytes()]));
    }

    #[test]
    fn a_last_event_without_its_blank_line_is_still_delivered() {
        assert_eq!(data(&parse_all(&[b"data: a\n\ndata: b"])), ["a", "b"]);
        assert_eq!(data(&parse_all(&[b"data: a\n\ndata: b\r\n"])), ["a", "b"]);
    }

    #[test]
    fn empty_events_and_unknown_fields_are_ignored() {
        let events = parse_all(&[b"\n\nid: 3\nretry: 10\n\nevent: x\n\nfoo\ndata\n\n"]);
        // `data` with no colon is a data line with an empty value.
        assert_eq!(data(&events), [""]);
    }

    #[test]
    fn invalid_utf8_and_endless_lines_are_errors() {
        let mut p = SseParser::new();
        assert!(p.push(b"data: \xff\xfe\n").is_err());
        let mut p = SseParser::new();
        let big = vec![b'a'; MAX_LINE_BYTES + 1];
        assert!(p.push(&big).is_err());
    }
}
