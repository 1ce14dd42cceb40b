//! Drawing helpers every component uses: a centred box, a bordered panel, citation markers and
//! highlighted query terms.

use crate::tui::theme;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

/// A `w` x `h` rectangle centred in `area`, clamped to fit inside it.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A bordered block whose border shows focus.
pub fn panel(title: &str, focused: bool) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused {
            theme::focused_border()
        } else {
            theme::border()
        })
        .title(Span::raw(format!(" {title} ")))
}

/// Splits text into spans, styling citation markers like `[3]`.
pub fn marker_spans(text: &str, marker: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after.as_bytes().get(digits) == Some(&b']') {
            plain.push_str(&rest[..open]);
            if !plain.is_empty() {
                spans.push(Span::raw(std::mem::take(&mut plain)));
            }
            spans.push(Span::styled(
                rest[open..open + digits + 2].to_string(),
                marker,
            ));
            rest = &rest[open + digits + 2..];
        } else {
            plain.push_str(&rest[..open + 1]);
            rest = after;
        }
    }
    plain.push_str(rest);
    if !plain.is_empty() {
        spans.push(Span::raw(plain));
    }
    spans
}

/// Splits text into spans, highlighting whole words found in `terms` (lower-case).
pub fn highlight_terms(text: &str, terms: &[String], style: Style) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut plain = String::new();
    let mut word = String::new();
    let flush_word = |word: &mut String, plain: &mut String, spans: &mut Vec<Span<'static>>| {
        if word.is_empty() {
            return;
        }
        if terms.iter().any(|t| *t == word.to_lowercase()) {
            if !plain.is_empty() {
                spans.push(Span::raw(std::mem::take(plain)));
            }
            spans.push(Span::styled(std::mem::take(word), style));
        } else {
            plain.push_str(word);
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush_word(&mut word, &mut plain, &mut spans);
            plain.push(c);
        }
    }
    flush_word(&mut word, &mut plain, &mut spans);
    if !plain.is_empty() {
        spans.push(Span::raw(plain));
    }
    spans
}

/// Words of a question worth highlighting: three characters or more, lower-cased.
pub fn query_terms(question: &str) -> Vec<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_split_out() {
        let s = marker_spans("a [1] b [x] [23]", Style::default());
        let texts: Vec<&str> = s.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(texts, vec!["a ", "[1]", " b [x] ", "[23]"]);
    }

    #[test]
    fn terms_are_highlighted_case_insensitively() {
        let terms = query_terms("What was the Budget?");
        let s = highlight_terms("The budget rose.", &terms, Style::default());
        let texts: Vec<&str> = s.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(texts, vec!["The", " ", "budget", " rose."]);
    }

    #[test]
    fn centered_never_leaves_the_area() {
        let area = Rect::new(3, 4, 5, 2);
        let r = centered(area, 50, 50);
        assert_eq!(r, area);
        assert_eq!(centered(Rect::new(0, 0, 0, 0), 3, 3).area(), 0);
    }
}
