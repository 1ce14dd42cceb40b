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
        n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
            .ok()
            .and_then(char::from_u32),
        n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
        _ => None,
    }
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
    fn entities() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#65;&#x42; &unknown; &"),
            "a & b <c> AB &unknown; &"
        );
    }
}
