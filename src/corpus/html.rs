//! HTML to plain text: headings become `#` lines, blocks become paragraphs, entities decoded.
//! Deliberately small: documents, not web apps, are the target.

/// Returns the `<title>` (if any) and the text.
pub fn to_text(html: &str) -> (Option<String>, String) {
    let title = between_tags(html, "title").map(|t| collapse(&decode_entities(&strip_tags(t))));
    let mut out = String::with_capacity(html.len() / 2);
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let bytes = html.as_bytes();
    while i < html.len() {
        if bytes[i] == b'<' {
            if lower[i..].starts_with("<!--") {
                // A comment may contain `>`; it ends only at `-->`.
                i = lower[i..].find("-->").map_or(html.len(), |e| i + e + 3);
                continue;
            }
            let Some(end) = html[i..].find('>').map(|e| i + e + 1) else {
                break;
            };
            let tag = tag_name(&lower[i..end]);
            let closing = lower[i..].starts_with("</");
            if !closing && matches!(tag.as_str(), "script" | "style" | "head") {
                i = skip_element(html, &lower, &tag, end);
                continue;
            }
            match tag.as_str() {
                h if h.len() == 2 && h.starts_with('h') && h.as_bytes()[1].is_ascii_digit() => {
                    out.push_str("\n\n");
                    if !closing {
                        let level = (h.as_bytes()[1] - b'0').clamp(1, 6) as usize;
                        out.push_str(&"#".repeat(level));
                        out.push(' ');
                    }
                }
                "p" | "div" | "br" | "section" | "article" | "li" | "tr" | "ul" | "ol"
                | "table" | "blockquote" | "pre" => out.push_str("\n\n"),
                _ => {}
            }
            i = end;
        } else {
            let next = html[i..].find('<').map(|n| i + n).unwrap_or(html.len());
            out.push_str(&decode_entities(&html[i..next]).replace('\n', " "));
            i = next;
        }
    }
    (title.filter(|t| !t.is_empty()), tidy(&out))
}

/// The byte after the element `tag` whose content starts at `content`. A `<head>` also ends
/// where `<body>` starts, since HTML lets the `</head>` be left out.
fn skip_element(html: &str, lower: &str, tag: &str, content: usize) -> usize {
    let rest = &lower[content..];
    let close = rest.find(&format!("</{tag}"));
    let body = (tag == "head").then(|| rest.find("<body")).flatten();
    match (close, body) {
        (Some(c), Some(b)) if b < c => content + b,
        (None, Some(b)) => content + b,
        (Some(c), _) => html[content + c..]
            .find('>')
            .map_or(html.len(), |q| content + c + q + 1),
        (None, None) => html.len(),
    }
}

fn tag_name(tag: &str) -> String {
    tag.trim_start_matches('<')
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect()
}

fn between_tags<'a>(html: &'a str, tag: &str) -> Option<&'a str> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find(&format!("<{tag}"))?;
    let start = open + html[open..].find('>')? + 1;
    let end = start + lower[start..].find(&format!("</{tag}"))?;
    Some(&html[start..end])
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Collapses spaces within lines and keeps single blank lines between paragraphs.
fn tidy(s: &str) -> String {
    let mut paras = Vec::new();
    for block in s.split("\n\n") {
        let lines: Vec<String> = block
            .lines()
            .map(collapse)
            .filter(|l| !l.is_empty())
            .collect();
        if !lines.is_empty() {
            paras.push(lines.join("\n"));
        }
    }
    paras.join("\n\n")
}

pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let semi = after.find(';').filter(|&p| p <= 10);
        let decoded = semi.and_then(|p| entity(&after[1..p]).map(|c| (c, p + 1)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &after[len..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" | "#39" => Some('\''),
        "nbsp" => Some(' '),
        "mdash" => Some('—'),
        "ndash" => Some('–'),
        "frac14" => Some('¼'),
        "frac12" => Some('½'),
        "frac34" => Some('¾'),
        n if n.starts_with("#x") || n.starts_with("#X") => {
            u32::from_str_radix(&n[2..], 16).ok().and_then(numeric)
        }
        n if n.starts_with('#') => n[1..].parse().ok().and_then(numeric),
        _ => None,
    }
}

/// The character a numeric reference stands for, never a control character: a document must
/// not be able to write `&#27;]52;…` and have fathom print an escape sequence. As browsers do
/// (HTML's numeric character reference rules), 128–159 are read as Windows-1252, where old
/// pages put their curly quotes and dashes; white space becomes a space (the text is collapsed
/// anyway), and every other control character the replacement character U+FFFD.
fn numeric(code: u32) -> Option<char> {
    const WINDOWS_1252: [char; 32] = [
        '€', '\u{FFFD}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{FFFD}', 'Ž',
        '\u{FFFD}', '\u{FFFD}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ',
        '\u{FFFD}', 'ž', 'Ÿ',
    ];
    let c = char::from_u32(code)?;
    Some(match c {
        '\t' | '\n' | '\r' | '\u{c}' => ' ',
        '\u{80}'..='\u{9f}' => WINDOWS_1252[(code - 0x80) as usize],
        c if c.is_control() => '\u{FFFD}',
        c => c,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_structure_and_drops_scripts() {
        let (title, text) = to_text("<html><head><title>T</title><style>x{}</style></head><body><script>alert(1)</script><h1>Top</h1><p>One <b>bold</b> line</p><ul><li>a</li><li>b</li></ul></body></html>");
        assert_eq!(title.as_deref(), Some("T"));
        assert_eq!(text, "# Top\n\nOne bold line\n\na\n\nb");
    }

    #[test]
    fn comments_breaks_and_an_unclosed_head() {
        let (title, text) =
            to_text("<head><title>T</title><body><!-- a > b --><p>line one<br>line two</p></body>");
        assert_eq!(title.as_deref(), Some("T"));
        assert_eq!(text, "line one\n\nline two");
    }

    #[test]
    fn numeric_references_never_make_control_characters() {
        let decoded = decode_entities(
            "a&#27;]52;c;Zm9v&#7;b &#x1b;[31m &#x9b;31m &#155; &#0; &#x7f; &#147;q&#148; &#x80;",
        );
        assert!(!decoded.chars().any(|c| c.is_control()), "{decoded:?}");
        assert_eq!(
            decoded,
            "a\u{FFFD}]52;c;Zm9v\u{FFFD}b \u{FFFD}[31m ›31m › \u{FFFD} \u{FFFD} “q” €"
        );
        // Through the whole reader, title included.
        let (title, text) =
            to_text("<head><title>t&#27;]0;x&#7;</title></head><p>one&#10;two&#9;three &#x9d;52;c;eA==&#x9c;</p>");
        assert!(!title.unwrap_or_default().chars().any(|c| c.is_control()));
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.starts_with("one two three"), "{text:?}");
    }

    proptest::proptest! {
        #[test]
        fn no_input_makes_the_reader_panic_or_invent_control_characters(
            html in proptest::string::string_regex(
                "(<[a-zA-Z/!-]{0,6}[^<>\\p{Cc}]{0,8}>?|&#?[xX]?[0-9a-fA-F]{0,8};?|&[a-z]{0,6};?|[^<&\\p{Cc}]{0,10}|\n|<!--|-->){0,40}"
            ).unwrap()
        ) {
            let (title, text) = to_text(&html);
            // Control characters can come only from the input itself, and this input has none
            // (but `\n`): numeric references must not make them.
            let bad = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
            proptest::prop_assert!(!bad(&text), "{:?} -> {:?}", html, text);
            proptest::prop_assert!(!title.as_deref().is_some_and(bad));
            proptest::prop_assert!(!text.contains("\n\n\n"));
        }

        #[test]
        fn arbitrary_text_is_read_without_panicking(html in proptest::prelude::any::<String>()) {
            let _ = to_text(&html);
            let _ = decode_entities(&html);
        }
    }

    #[test]
    fn entities() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#65;&#x42; &unknown; &"),
            "a & b <c> AB &unknown; &"
        );
    }
}
