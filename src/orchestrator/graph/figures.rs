//! Figures in sentences, as documents write them: percentages and percent ranges (`1-1/2 to
//! 1-3/4 percent`), basis points, dollar amounts (`$30 billion per month`). Claims are keyed by
//! them, conflicts found with them, differences computed from them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    Percent,
    BasisPoints,
    Dollars,
}

/// A figure: its text as written, its kind, and its value (a range's ends; lower = upper for one
/// number). Dollar values are in billions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub text: String,
    pub kind: FigureKind,
    pub lower: f64,
    pub upper: f64,
}

/// A number as documents write it: `6-1/2`, `1/4`, `5.25`, `17.5`.
pub fn parse_number(s: &str) -> Option<f64> {
    let s = s.trim().trim_start_matches('$').replace(',', "");
    if s.is_empty() {
        return None;
    }
    if let Some((whole, frac)) = s.split_once('-') {
        if frac.contains('/') {
            return Some(whole.parse::<f64>().ok()? + fraction(frac)?);
        }
        return None;
    }
    if s.contains('/') {
        return fraction(&s);
    }
    s.parse().ok()
}

fn fraction(s: &str) -> Option<f64> {
    let (n, d) = s.split_once('/')?;
    let (n, d): (f64, f64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    (d != 0.0).then_some(n / d)
}

fn is_number(w: &str) -> bool {
    let w = w.trim_start_matches('$');
    !w.is_empty()
        && w.chars().any(|c| c.is_ascii_digit())
        && w.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '/' | '-' | '.' | ','))
}

/// Every figure in `text`, in order.
pub fn figures(text: &str) -> Vec<Figure> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '"' | '“' | '”'))
        })
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let lower_next = |k: usize| words.get(i + k).map(|s| s.to_lowercase());
        if is_number(w) && !w.starts_with('$') {
            let Some(a) = parse_number(w) else {
                i += 1;
                continue;
            };
            // `A to B percent`, `A percent`, `A basis points`, `A percentage point(s)`.
            if lower_next(1).as_deref() == Some("to")
                && words.get(i + 2).is_some_and(|b| is_number(b))
                && lower_next(3).is_some_and(|p| p.starts_with("percent"))
            {
                if let Some(b) = parse_number(words[i + 2]) {
                    out.push(Figure {
                        text: format!("{w} to {} percent", words[i + 2]),
                        kind: FigureKind::Percent,
                        lower: a.min(b),
                        upper: a.max(b),
                    });
                    i += 4;
                    continue;
                }
            }
            match lower_next(1).as_deref() {
                Some(p) if p.starts_with("percent") && !p.starts_with("percentage") => {
                    out.push(Figure {
                        text: format!("{w} percent"),
                        kind: FigureKind::Percent,
                        lower: a,
                        upper: a,
                    });
                    i += 2;
                    continue;
                }
                Some("basis") if lower_next(2).is_some_and(|p| p.starts_with("point")) => {
                    out.push(Figure {
                        text: format!("{w} basis points"),
                        kind: FigureKind::BasisPoints,
                        lower: a,
                        upper: a,
                    });
                    i += 3;
                    continue;
                }
                Some(p) if p.starts_with("percentage") => {
                    out.push(Figure {
                        text: format!("{w} percentage point"),
                        kind: FigureKind::BasisPoints,
                        lower: a * 100.0,
                        upper: a * 100.0,
                    });
                    i += 3;
                    continue;
                }
                _ => {}
            }
        }
        if w.starts_with('$') && is_number(w) {
            if let Some(a) = parse_number(w) {
                let scale = match lower_next(1).as_deref() {
                    Some("trillion") => 1000.0,
                    Some("billion") => 1.0,
                    Some("million") => 0.001,
                    _ => 1e-9,
                };
                let unit = if scale == 1e-9 { 0 } else { 1 };
                let mut text: Vec<&str> = words[i..=i + unit].to_vec();
                if lower_next(unit + 1).as_deref() == Some("per")
                    && lower_next(unit + 2).as_deref() == Some("month")
                {
                    text.extend_from_slice(&words[i + unit + 1..=i + unit + 2]);
                }
                let used = text.len();
                out.push(Figure {
                    text: text.join(" "),
                    kind: FigureKind::Dollars,
                    lower: a * scale,
                    upper: a * scale,
                });
                i += used;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `x` written the way documents write quarter-point figures: `5-1/4`, `1/2`, `4`, `17.5`.
pub fn write_number(x: f64) -> String {
    let whole = x.trunc();
    let frac = x - whole;
    let quarter = ["", "1/4", "1/2", "3/4"];
    let q = (frac * 4.0).round() as usize;
    if (frac * 4.0 - q as f64).abs() < 1e-9 && q < 4 {
        return match (whole as i64, q) {
            (w, 0) => format!("{w}"),
            (0, q) => quarter[q].to_string(),
            (w, q) => format!("{w}-{}", quarter[q]),
        };
    }
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(String, FigureKind, f64, f64)> {
        figures(text)
            .into_iter()
            .map(|f| (f.text, f.kind, f.lower, f.upper))
            .collect()
    }

    #[test]
    fn ranges_levels_points_and_dollars() {
        use FigureKind::*;
        assert_eq!(
            kinds("raise the target range to 1-1/2 to 1-3/4 percent."),
            vec![("1-1/2 to 1-3/4 percent".into(), Percent, 1.5, 1.75)]
        );
        assert_eq!(
            kinds("lower its target by 50 basis points to 6 percent"),
            vec![
                ("50 basis points".into(), BasisPoints, 50.0, 50.0),
                ("6 percent".into(), Percent, 6.0, 6.0)
            ]
        );
        assert_eq!(
            kinds("by 1/2 percentage point, to 1 to 1-1/4 percent"),
            vec![
                ("1/2 percentage point".into(), BasisPoints, 50.0, 50.0),
                ("1 to 1-1/4 percent".into(), Percent, 1.0, 1.25)
            ]
        );
        assert_eq!(
            kinds("at a pace of $35 billion per month and $1.5 trillion overall"),
            vec![
                ("$35 billion per month".into(), Dollars, 35.0, 35.0),
                ("$1.5 trillion".into(), Dollars, 1500.0, 1500.0)
            ]
        );
        assert!(kinds("In 2018 the Committee met 8 times.").is_empty());
        assert_eq!(kinds("0 to 1/4 percent")[0].2, 0.0);
    }

    #[test]
    fn numbers_are_written_as_documents_write_them() {
        assert_eq!(write_number(5.25), "5-1/4");
        assert_eq!(write_number(0.5), "1/2");
        assert_eq!(write_number(4.0), "4");
        assert_eq!(write_number(17.5), "17-1/2");
        assert_eq!(write_number(0.1), "0.1");
        assert_eq!(parse_number("6-1/2"), Some(6.5));
        assert_eq!(parse_number("$17.5"), Some(17.5));
        assert_eq!(parse_number("2-2"), None);
    }
}
