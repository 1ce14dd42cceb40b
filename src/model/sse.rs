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

/// The same bound for the `data:` lines of one event taken together: a server that sends `data:`
/// lines forever without the blank line that ends an event must not fill memory either.
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// The parse failed: the stream is not a usable event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SseError {
    pub kind: SseErrorKind,
    pub message: String,
}

/// Why the parse failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseErrorKind {
    /// A line or an event passed its size limit.
    TooLong,
    /// Not an event stream (a line is not UTF-8).
    Malformed,
}

impl SseError {
    fn too_long(message: String) -> SseError {
        SseError {
            kind: SseErrorKind::TooLong,
            message,
        }
    }
}

/// Feeds bytes in, gets whole events out.
#[derive(Debug)]
pub struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// `data:` lines of the event being built.
    data: Vec<String>,
    /// Their bytes so far, newlines between them included.
    data_bytes: usize,
    event: Option<String>,
    /// Whether any field line was seen for the pending event (a `data:` line may be empty).
    pending: bool,
    max_line: usize,
    max_event: usize,
}

impl Default for SseParser {
    fn default() -> SseParser {
        SseParser::with_limits(MAX_LINE_BYTES, MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser with the default limits ([`MAX_LINE_BYTES`], [`MAX_EVENT_BYTES`]).
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// A parser that fails on a line longer than `max_line` bytes or an event whose data is
    /// longer than `max_event` bytes, instead of buffering more.
    pub fn with_limits(max_line: usize, max_event: usize) -> SseParser {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            data_bytes: 0,
            event: None,
            pending: false,
            max_line,
            max_event,
        }
    }

    /// Consumes one network chunk and returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            if self.line.len().saturating_add(nl) > self.max_line {
                return Err(self.line_too_long());
            }
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
        if self.line.len().saturating_add(rest.len()) > self.max_line {
            return Err(self.line_too_long());
        }
        self.line.extend_from_slice(rest);
        Ok(out)
    }

    fn line_too_long(&self) -> SseError {
        SseError::too_long(format!(
            "an event-stream line is longer than {} bytes",
            self.max_line
        ))
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
        let line = std::str::from_utf8(line).map_err(|_| SseError {
            kind: SseErrorKind::Malformed,
            message: "an event-stream line is not valid UTF-8".into(),
        })?;
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                // +1 for the newline that joins it to the previous line.
                self.data_bytes = self
                    .data_bytes
                    .saturating_add(value.len())
                    .saturating_add(usize::from(!self.data.is_empty()));
                if self.data_bytes > self.max_event {
                    return Err(SseError::too_long(format!(
                        "an event's data is longer than {} bytes (no blank line ends it)",
                        self.max_event
                    )));
                }
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
        self.data_bytes = 0;
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

    #[test]
    fn endless_data_lines_without_a_blank_line_are_an_error() {
        let mut p = SseParser::with_limits(1024, 4096);
        let line = format!("data: {}\n", "x".repeat(100));
        let mut failed = None;
        for i in 0..1000 {
            if let Err(e) = p.push(line.as_bytes()) {
                failed = Some((i, e));
                break;
            }
        }
        let (i, e) = failed.expect("the parser kept buffering");
        // 4096 bytes hold 40 lines of 101 bytes; the 41st passes the limit.
        assert_eq!(i, 40, "{e}");
        assert_eq!(e.kind, SseErrorKind::TooLong);
        assert!(e.message.contains("4096"), "{e}");
        // A blank line in time resets the count: many small events are fine.
        let mut p = SseParser::with_limits(1024, 4096);
        for _ in 0..1000 {
            assert_eq!(p.push(b"data: abc\n\n").unwrap().len(), 1);
        }
    }

    use proptest::prelude::*;

    /// Feeds `bytes` cut at `cuts` (positions, any order, out of range ignored).
    fn parse_split(bytes: &[u8], cuts: &[usize]) -> Result<Vec<SseEvent>, SseError> {
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        points.push(0);
        points.push(bytes.len());
        points.sort_unstable();
        let mut p = SseParser::with_limits(256, 1024);
        let mut out = Vec::new();
        for w in points.windows(2) {
            out.extend(p.push(&bytes[w[0]..w[1]])?);
        }
        out.extend(p.finish()?);
        Ok(out)
    }

    /// One event as a server may write it: optional comment and name, data lines, CRLF or LF.
    fn event() -> impl Strategy<Value = (Option<String>, Vec<String>, bool, bool)> {
        (
            proptest::option::of("[a-z]{1,8}"),
            proptest::collection::vec("[^\\r\\n]{0,20}", 1..4),
            any::<bool>(),
            any::<bool>(),
        )
    }

    proptest! {
        #[test]
        fn any_bytes_any_splits_same_outcome(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            cuts in proptest::collection::vec(any::<usize>(), 0..8),
        ) {
            // Never a panic, and the cuts never change the result, error or events.
            prop_assert_eq!(parse_split(&bytes, &cuts), parse_split(&bytes, &[]));
        }

        #[test]
        fn written_events_come_back(
            events in proptest::collection::vec(event(), 0..6),
            cuts in proptest::collection::vec(any::<usize>(), 0..8),
        ) {
            let mut text = String::new();
            for (name, data, crlf, comment) in &events {
                let nl = if *crlf { "\r\n" } else { "\n" };
                if *comment {
                    text.push_str(&format!(": keep-alive{nl}"));
                }
                if let Some(n) = name {
                    text.push_str(&format!("event: {n}{nl}"));
                }
                for d in data {
                    text.push_str(&format!("data: {d}{nl}"));
                }
                text.push_str(nl);
            }
            let parsed = parse_split(text.as_bytes(), &cuts).unwrap();
            let want: Vec<SseEvent> = events
                .iter()
                .map(|(name, data, _, _)| SseEvent {
                    event: name.clone(),
                    // One space after the colon is the separator, the rest is data.
                    data: data.join("\n"),
                })
                .collect();
            prop_assert_eq!(parsed, want);
        }
    }

    #[test]
    fn a_line_over_the_limit_fails_before_it_is_buffered() {
        let mut p = SseParser::with_limits(10, 100);
        assert!(p.push(b"data: 1234").is_ok());
        assert!(p.push(b"5").is_err());
        let mut p = SseParser::with_limits(10, 100);
        assert_eq!(p.push(b"data: 1234\n\n").unwrap().len(), 1);
    }
}
