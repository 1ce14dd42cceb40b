//! Reading dates out of a question: "March 2020", "August 22, 2000", "2020-03-15", "2008 and 2010".
//! Used by the planner for date hints and by `fathom search` to favour passages of those dates.

use crate::corpus::date::days_in_month;
use crate::corpus::Date;
use serde::{Deserialize, Serialize};

/// A date range the question is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataHints {
    pub date_start: Date,
    pub date_end: Date,
}

impl MetadataHints {
    /// The calendar years the range touches.
    pub fn years(&self) -> Vec<i32> {
        (self.date_start.year..=self.date_end.year).collect()
    }

    pub fn contains(&self, d: Date) -> bool {
        self.date_start <= d && d <= self.date_end
    }
}

fn month(word: &str) -> Option<u8> {
    crate::calendar::month_from_name(word).map(|m| m as u8)
}

fn year_of(word: &str) -> Option<i32> {
    let y: i32 = word.parse().ok()?;
    (word.len() == 4 && (1900..=2100).contains(&y)).then_some(y)
}

/// The date range the question names: exact dates, months with years, or bare years.
pub fn date_hints(lower: &str) -> Option<MetadataHints> {
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut ranges: Vec<(Date, Date)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some(d) = Date::parse(w) {
            ranges.push((d, d));
            continue;
        }
        let Some(y) = year_of(w) else { continue };
        // "March 15, 2020", "15 March 2020", "March 2020"
        let prev = i.checked_sub(1).map(|j| words[j]);
        let prev2 = i.checked_sub(2).map(|j| words[j]);
        let day = |s: &str| s.parse::<u8>().ok().filter(|d| (1..=31).contains(d));
        let found = match (prev2, prev) {
            (Some(m), Some(d)) if month(m).is_some() && day(d).is_some() => month(m).zip(day(d)),
            (Some(d), Some(m)) if month(m).is_some() && day(d).is_some() => month(m).zip(day(d)),
            (_, Some(m)) if month(m).is_some() => month(m).map(|m| (m, 0)),
            _ => None,
        };
        let range = match found {
            Some((m, 0)) => (
                Date {
                    year: y,
                    month: m,
                    day: 1,
                },
                Date {
                    year: y,
                    month: m,
                    day: days_in_month(y, m),
                },
            ),
            Some((m, d)) if d <= days_in_month(y, m) => (
                Date {
                    year: y,
                    month: m,
                    day: d,
                },
                Date {
                    year: y,
                    month: m,
                    day: d,
                },
            ),
            _ => (
                Date {
                    year: y,
                    month: 1,
                    day: 1,
                },
                Date {
                    year: y,
                    month: 12,
                    day: 31,
                },
            ),
        };
        ranges.push(range);
    }
    let start = ranges.iter().map(|r| r.0).min()?;
    let end = ranges.iter().map(|r| r.1).max()?;
    Some(MetadataHints {
        date_start: start,
        date_end: end,
    })
}
