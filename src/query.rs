//! Reading dates out of a question: "March 2020", "August 22, 2000", "2020-03-15", "2008 and 2010",
//! and which meeting of them it points to ("mid-March", "the last meeting of 2004"). Used by the
//! planner for date hints, by synthesize to pick the meeting that answers, and by `fathom
//! search` to favour passages of those dates.

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

/// "late-June", "mid-2008": a part named before a month or a year, joined by a hyphen.
fn hyphen_part(word: &str) -> (Option<&str>, &str) {
    for (prefix, part) in [
        ("early-", "early"),
        ("mid-", "mid"),
        ("late-", "late"),
        ("end-of-", "late"),
        ("start-of-", "early"),
        ("beginning-of-", "early"),
    ] {
        if let Some(rest) = word.strip_prefix(prefix) {
            return (Some(part), rest);
        }
    }
    (None, word)
}

/// The month a word names; "late-June" and "mid-December" name June and December.
fn month(word: &str) -> Option<u8> {
    crate::calendar::month_from_name(hyphen_part(word).1).map(|m| m as u8)
}

fn year_of(word: &str) -> Option<i32> {
    let y: i32 = word.parse().ok()?;
    (word.len() == 4 && (1900..=2100).contains(&y)).then_some(y)
}

/// "mid-2008": the year and the months the part covers (early 1–4, mid 5–8, late 9–12).
fn hyphenated_year(word: &str) -> Option<(i32, u8, u8)> {
    let (part, rest) = hyphen_part(word);
    let y = year_of(rest)?;
    match part? {
        "early" => Some((y, 1, 4)),
        "mid" => Some((y, 5, 8)),
        _ => Some((y, 9, 12)),
    }
}

/// One date or date range a question names, with where it stands (word positions in the
/// question's lower-case words, and the words themselves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateMention {
    pub range: MetadataHints,
    /// First and one-past-last word of the mention.
    pub words: (usize, usize),
    pub text: String,
}

/// The words of a lower-case question, split as [`date_mentions`] counts them.
pub fn question_words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn range(y: i32, m1: u8, m2: u8) -> MetadataHints {
    MetadataHints {
        date_start: Date {
            year: y,
            month: m1,
            day: 1,
        },
        date_end: Date {
            year: y,
            month: m2,
            day: days_in_month(y, m2),
        },
    }
}

/// A part of a year named before it: "first half of 2001", "spring 2023", "q3 2019",
/// "early 2008" (months 1–4), "late 2008" (9–12); with how many words it takes before the year.
fn part_of_year(words: &[&str], i: usize) -> Option<(u8, u8, usize)> {
    let w = |k: usize| i.checked_sub(k).map(|j| words[j]);
    match (w(3), w(2), w(1)) {
        (Some("first"), Some("half"), Some("of")) => return Some((1, 6, 3)),
        (Some("second"), Some("half"), Some("of")) => return Some((7, 12, 3)),
        (Some(q), Some("quarter"), Some("of")) => {
            let n = ["first", "second", "third", "fourth"]
                .iter()
                .position(|x| *x == q)?;
            let m = n as u8 * 3 + 1;
            return Some((m, m + 2, 3));
        }
        _ => {}
    }
    match w(1) {
        Some("spring") => Some((3, 5, 1)),
        Some("summer") => Some((6, 8, 1)),
        Some("fall") | Some("autumn") => Some((9, 11, 1)),
        Some("early") => Some((1, 4, 1)),
        Some("late") => Some((9, 12, 1)),
        Some(q) if q.len() == 2 && q.starts_with('q') => {
            let n: u8 = q[1..].parse().ok().filter(|n| (1..=4).contains(n))?;
            Some(((n - 1) * 3 + 1, n * 3, 1))
        }
        _ => None,
    }
}

/// The days of a month from `d1` to `d2` (the month's last day at most).
fn days(y: i32, m: u8, d1: u8, d2: u8) -> MetadataHints {
    let date = |day| Date {
        year: y,
        month: m,
        day,
    };
    MetadataHints {
        date_start: date(d1),
        date_end: date(d2.min(days_in_month(y, m))),
    }
}

/// "Late January", "the end of January", "mid-June", "early March": the days of the month
/// named at `words[at]` that part stands for, and how many words before the month it takes.
/// The parts overlap (a meeting on the 15th is both early and mid-month): a question's "late"
/// is loose, and a meeting just outside the part would otherwise be missed.
fn part_of_month(words: &[&str], at: usize) -> Option<((u8, u8), usize)> {
    let early = (1, 15);
    let mid = (8, 23);
    let late = (16, 31);
    match hyphen_part(words[at]).0 {
        Some("early") => return Some((early, 0)),
        Some("mid") => return Some((mid, 0)),
        Some("late") => return Some((late, 0)),
        _ => {}
    }
    let w = |k: usize| at.checked_sub(k).map(|j| words[j]);
    match (w(2), w(1)) {
        (Some("end" | "close"), Some("of")) => Some((late, 2)),
        (Some("start" | "beginning"), Some("of")) => Some((early, 2)),
        (Some("middle"), Some("of")) => Some((mid, 2)),
        (_, Some("late")) => Some((late, 1)),
        (_, Some("early")) => Some((early, 1)),
        (_, Some("mid")) => Some((mid, 1)),
        _ => None,
    }
}

/// "April 30-May 1, 2019" (words: `april`, `30-may`, `1`, `2019`): a meeting's two days in
/// two months of the year `words[i]`, and how many words before the year the mention takes.
fn across_months(words: &[&str], i: usize, y: i32) -> Option<(MetadataHints, usize)> {
    let w = |k: usize| i.checked_sub(k).map(|j| words[j]);
    let (m1, joined, d2) = (month(w(3)?)?, w(2)?, w(1)?);
    let (d1, m2) = joined.split_once('-')?;
    let m2 = crate::calendar::month_from_name(m2)? as u8;
    let (d1, d2): (u8, u8) = (d1.parse().ok()?, d2.parse().ok()?);
    let fits = m1 < m2
        && (1..=days_in_month(y, m1)).contains(&d1)
        && (1..=days_in_month(y, m2)).contains(&d2);
    let hint = MetadataHints {
        date_start: Date {
            year: y,
            month: m1,
            day: d1,
        },
        date_end: Date {
            year: y,
            month: m2,
            day: d2,
        },
    };
    fits.then_some((hint, 3))
}

/// Every date a question names, in order: exact dates ("May 16, 2000", "16 May 2000",
/// "2000-05-16"), months with years ("March 2020"), parts of years ("first half of 2001",
/// "spring 2023") and bare years.
pub fn date_mentions(lower: &str) -> Vec<DateMention> {
    let words = question_words(lower);
    let mut out: Vec<DateMention> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some(d) = Date::parse(w) {
            out.push(DateMention {
                range: MetadataHints {
                    date_start: d,
                    date_end: d,
                },
                words: (i, i + 1),
                text: w.to_string(),
            });
            continue;
        }
        if let Some((y, m1, m2)) = hyphenated_year(w) {
            out.push(DateMention {
                range: range(y, m1, m2),
                words: (i, i + 1),
                text: w.to_string(),
            });
            continue;
        }
        let Some(y) = year_of(w) else { continue };
        // "March 15, 2020", "15 March 2020", "March 2020"
        let prev = i.checked_sub(1).map(|j| words[j]);
        let prev2 = i.checked_sub(2).map(|j| words[j]);
        // A day, or the days of a two-day meeting ("16-17"): its first and last day.
        let day = |s: &str| -> Option<(u8, u8)> {
            let ok = |d: u8| (1..=31).contains(&d).then_some(d);
            match s.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (ok(a.parse().ok()?)?, ok(b.parse().ok()?)?);
                    (a <= b).then_some((a, b))
                }
                None => s.parse().ok().and_then(ok).map(|d| (d, d)),
            }
        };
        // A two-day meeting across two months: "April 30-May 1, 2019".
        if let Some((hint, before)) = across_months(&words, i, y) {
            let start = i - before;
            out.push(DateMention {
                range: hint,
                words: (start, i + 1),
                text: words[start..=i].join(" "),
            });
            continue;
        }
        let found = match (prev2, prev) {
            (Some(m), Some(d)) if month(m).is_some() && day(d).is_some() => {
                month(m).zip(day(d)).map(|md| (md, 2))
            }
            (Some(d), Some(m)) if month(m).is_some() && day(d).is_some() => {
                month(m).zip(day(d)).map(|md| (md, 2))
            }
            (_, Some(m)) if month(m).is_some() => month(m).map(|m| ((m, (0, 0)), 1)),
            _ => None,
        };
        let (hint, before) = match found {
            // "between January and June 2018", "from March to December 2018": the first month
            // borrows the year of the second.
            Some(((m, (0, _)), before)) => match open_month_range(&words, i - before) {
                Some(m0) if m0 < m => (range(y, m0, m), before + 2),
                _ => match part_of_month(&words, i - before) {
                    Some(((d1, d2), extra)) => (days(y, m, d1, d2), before + extra),
                    None => (range(y, m, m), before),
                },
            },
            Some(((m, (d1, d2)), before)) if d2 <= days_in_month(y, m) => {
                (days(y, m, d1, d2), before)
            }
            _ => match part_of_year(&words, i) {
                Some((m1, m2, before)) => (range(y, m1, m2), before),
                None => (range(y, 1, 12), 0),
            },
        };
        let start = i - before;
        out.push(DateMention {
            range: hint,
            words: (start, i + 1),
            text: words[start..=i].join(" "),
        });
    }
    days_of_the_named_year(&words, &mut out);
    without_dating_periods(&mut out);
    out
}

/// "The 2017 hurricanes … in its September 2017 statement": a whole year that holds another
/// mention's narrower date is what dates that one, not a period the question asks about; so is
/// a later period within one year beside a named meeting ("besides the mid-2013 guidance, what
/// did the August 9, 2011 statement say …?": a horizon the meeting spoke of).
fn without_dating_periods(mentions: &mut Vec<DateMention>) {
    let only_dates = |m: &DateMention| {
        let year = m.range.date_start.year;
        let whole_year = m.range == range(year, 1, 12);
        let months = m.range.date_start.month != m.range.date_end.month;
        mentions.iter().any(|o| {
            let (a, b) = (o.range.date_start, o.range.date_end);
            let narrower = a.year == b.year && o.range != range(a.year, 1, 12);
            // A meeting's day or two ("August 9, 2011", "January 29-30, 2008").
            let meeting = a.month == b.month && b.day.saturating_sub(a.day) <= 1;
            o.range != m.range
                && narrower
                && ((whole_year && a.year == year)
                    || (months && m.range.date_end.year == year && meeting && a.year < year))
        })
    };
    let dating: Vec<bool> = mentions.iter().map(only_dates).collect();
    let mut dating = dating.into_iter();
    mentions.retain(|_| !dating.next().unwrap_or(false));
}

/// "The last cut of 2001, on December 11": a day named without its year, in a question that
/// names one year and nothing narrower, is that year's day; the year's mention narrows to it.
fn days_of_the_named_year(words: &[&str], mentions: &mut [DateMention]) {
    let [only] = mentions else { return };
    let year = only.range.date_start.year;
    let whole_year = only.range == range(year, 1, 12);
    if !whole_year {
        return;
    }
    let day = |w: &str| w.parse::<u8>().ok().filter(|d| (1..=31).contains(d));
    let days: Vec<Date> = (0..words.len().saturating_sub(1))
        .filter_map(|i| {
            let (m, d) = match (month(words[i]), month(words[i + 1])) {
                (Some(m), _) => (m, day(words[i + 1])?),
                (None, Some(m)) => (m, day(words[i])?),
                _ => return None,
            };
            // "December 11, 2001" was read with its year already.
            let next_is_year = words.get(i + 2).is_some_and(|w| year_of(w).is_some());
            (!next_is_year && d <= days_in_month(year, m)).then_some(Date {
                year,
                month: m,
                day: d,
            })
        })
        .collect();
    if let (Some(&first), Some(&last)) = (days.iter().min(), days.iter().max()) {
        only.range = MetadataHints {
            date_start: first,
            date_end: last,
        };
    }
}

/// The month that opens a range ending at `words[end]` ("January" in "between January and June
/// 2018"): `<month> to|through|until`, or `between <month> and` ("January and June 2018"
/// alone names two meetings, not a period).
fn open_month_range(words: &[&str], end: usize) -> Option<u8> {
    let joiner = *words.get(end.checked_sub(1)?)?;
    let first = month(words.get(end.checked_sub(2)?)?)?;
    let between = end
        .checked_sub(3)
        .and_then(|j| words.get(j))
        .is_some_and(|w| *w == "between");
    match joiner {
        "to" | "through" | "until" | "till" => Some(first),
        "and" if between => Some(first),
        _ => None,
    }
}

/// The date range the question names: from the earliest to the latest date it mentions.
pub fn date_hints(lower: &str) -> Option<MetadataHints> {
    let mentions = date_mentions(lower);
    let start = mentions.iter().map(|m| m.range.date_start).min()?;
    let end = mentions.iter().map(|m| m.range.date_end).max()?;
    Some(MetadataHints {
        date_start: start,
        date_end: end,
    })
}

/// Part of a month a question names: "early March", "mid-March", "late March".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Early,
    Mid,
    Late,
}

impl Part {
    /// Whether day `day` of a month lies in this part of it.
    pub fn contains(self, day: u8) -> bool {
        match self {
            Part::Early => day <= 12,
            Part::Mid => (8..=22).contains(&day),
            Part::Late => day >= 18,
        }
    }
}

/// Which meeting of a range a question means, beyond the range itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pointer {
    /// A month named with a part ("mid-March"): (month, part).
    pub part: Option<(u8, Part)>,
    /// "first meeting of …" (`Some(true)`) or "last / final meeting of …" (`Some(false)`).
    pub first: Option<bool>,
}

/// Reads "early/mid/late <month>" and "first/last/final meeting" from a question.
pub fn pointer(question: &str) -> Pointer {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut p = Pointer::default();
    for (i, w) in words.iter().enumerate() {
        let Some(month) =
            crate::calendar::month_from_name(w).filter(|_| w.len() > 3 || *w == "may")
        else {
            continue;
        };
        let part = match i.checked_sub(1).map(|j| words[j]) {
            Some("early" | "beginning") => Some(Part::Early),
            Some("mid" | "middle") => Some(Part::Mid),
            Some("late" | "end") => Some(Part::Late),
            _ => None,
        };
        if let Some(part) = part {
            p.part = Some((month as u8, part));
        }
    }
    let meeting = |k: usize| {
        words
            .get(k + 1..(k + 8).min(words.len()))
            .is_some_and(|next| next.iter().any(|w| w.starts_with("meeting")))
    };
    for (i, w) in words.iter().enumerate() {
        match *w {
            "first" | "opening" if meeting(i) => p.first = Some(true),
            "last" | "final" | "closing" if meeting(i) => p.first = Some(false),
            _ => {}
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        Date::parse(s).unwrap_or(Date {
            year: 0,
            month: 1,
            day: 1,
        })
    }

    fn spans(q: &str) -> Vec<(String, String, String)> {
        date_mentions(&q.to_lowercase())
            .into_iter()
            .map(|m| {
                (
                    m.text,
                    m.range.date_start.to_string(),
                    m.range.date_end.to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_month_range_with_one_year_is_one_mention() {
        assert_eq!(
            spans("How did the target change between January and June 2018?"),
            vec![(
                "january and june 2018".to_string(),
                "2018-01-01".to_string(),
                "2018-06-30".to_string()
            )]
        );
        let m = spans("from March to December 2018");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2018-03-01", "2018-12-31")
        );
        // Two dated sides stay two mentions, and so do two months of one year.
        assert_eq!(spans("Compare June 2004 and June 2006").len(), 2);
        assert_eq!(spans("Compare January and June 2018").len(), 1);
        assert_eq!(spans("Compare January and June 2018")[0].1, "2018-06-01");
    }

    #[test]
    fn a_year_that_dates_a_narrower_mention_gives_way_to_it() {
        let m =
            spans("How did the FOMC describe the 2017 hurricanes in its September 2017 statement?");
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2017-09-01", "2017-09-30")
        );
        // A later year beside a named day is a horizon the meeting spoke of.
        let m = spans("Besides the mid-2013 guidance, what did the August 9, 2011 statement say?");
        assert_eq!((m.len(), m[0].1.as_str()), (1, "2011-08-09"));
        // Another year, or a year alone, stays.
        assert_eq!(spans("Compare 2016 with September 2017").len(), 2);
        assert_eq!(spans("Compare March 3, 2016 with 2015").len(), 2);
        assert_eq!(spans("What happened in 2017?").len(), 1);
    }

    #[test]
    fn a_meeting_across_two_months_is_its_two_days() {
        let m =
            spans("per the minutes of the April 30-May 1, 2019 meeting, what did the Board do?");
        assert_eq!(
            m,
            vec![(
                "april 30-may 1 2019".to_string(),
                "2019-04-30".to_string(),
                "2019-05-01".to_string()
            )]
        );
        let m = spans("At the July 31-August 1 2018 meeting");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2018-07-31", "2018-08-01")
        );
        // Not a date: a day past the month's end.
        assert_eq!(spans("April 31-May 1, 2019")[0].1, "2019-01-01");
    }

    #[test]
    fn a_part_of_a_month_narrows_it() {
        let m = spans("What was the discount rate at the end of January 2001?");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2001-01-16", "2001-01-31")
        );
        assert_eq!(m[0].0, "end of january 2001");
        let m = spans("in early March 2020");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2020-03-01", "2020-03-15")
        );
        let m = spans("the mid-June 2016 decision");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2016-06-08", "2016-06-23")
        );
        let m = spans("late February 2024");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2024-02-16", "2024-02-29")
        );
        // A month alone is the whole month; "late 2001" is still the year's end.
        let m = spans("in June 2016");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2016-06-01", "2016-06-30")
        );
        let m = spans("in late 2001");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2001-09-01", "2001-12-31")
        );
    }

    #[test]
    fn a_day_without_its_year_takes_the_year_named() {
        let m = spans("With the last rate cut of 2001, on December 11, what did the Board do?");
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2001-12-11", "2001-12-11")
        );
        let m = spans("In 2008, on 16 March, what did the Fed announce?");
        assert_eq!(
            (m[0].1.as_str(), m[0].2.as_str()),
            ("2008-03-16", "2008-03-16")
        );
        // A month alone, or two years, narrow nothing.
        assert_eq!(
            spans("In 2008, in March, what happened?")[0].1,
            "2008-01-01"
        );
        assert_eq!(spans("Compare 2004 and 2006 on May 4").len(), 2);
    }

    #[test]
    fn mentions_keep_each_date_apart() {
        let m = spans("Compare the decisions of June 2004 and June 2006");
        assert_eq!(
            m,
            vec![
                ("june 2004".into(), "2004-06-01".into(), "2004-06-30".into()),
                ("june 2006".into(), "2006-06-01".into(), "2006-06-30".into()),
            ]
        );
        let m = spans("between December 2013 and October 2014, and on 16 March 2022");
        assert_eq!(m.len(), 3);
        assert_eq!(m[2].1, "2022-03-16");
        assert_eq!(m[2].0, "16 march 2022");
    }

    #[test]
    fn hyphenated_parts_of_months_and_years() {
        assert_eq!(
            spans("the late-June 2001 rate cut"),
            vec![(
                "late-june 2001".into(),
                "2001-06-16".into(),
                "2001-06-30".into()
            )]
        );
        assert_eq!(spans("in mid-December 2015")[0].1, "2015-12-08");
        assert_eq!(
            spans("by mid-2008"),
            vec![("mid-2008".into(), "2008-05-01".into(), "2008-08-31".into())]
        );
        assert_eq!(spans("early-2019")[0].2, "2019-04-30");
        // A hyphen joins only these parts: "pre-2008" is no date.
        assert!(spans("pre-2008 levels").is_empty());
        assert_eq!(
            spans("as of the end-of-July 2013 statement")[0].1,
            "2013-07-16"
        );
    }

    #[test]
    fn the_days_of_a_two_day_meeting() {
        assert_eq!(
            spans("at the December 16-17, 2014 FOMC meeting"),
            vec![(
                "december 16-17 2014".into(),
                "2014-12-16".into(),
                "2014-12-17".into()
            )]
        );
        assert_eq!(spans("on 30-31 January 2024")[0].2, "2024-01-31");
        // A backwards range is no day: only the year is read.
        assert_eq!(spans("December 17-16, 2014")[0].1, "2014-01-01");
    }

    #[test]
    fn parts_of_years() {
        let m = spans("during the first half of 2001");
        assert_eq!(
            m[0],
            (
                "first half of 2001".into(),
                "2001-01-01".into(),
                "2001-06-30".into()
            )
        );
        assert_eq!(spans("spring 2023")[0].2, "2023-05-31");
        assert_eq!(spans("in Q4 2019")[0].1, "2019-10-01");
        assert_eq!(spans("the third quarter of 2019")[0].2, "2019-09-30");
        assert_eq!(spans("in 2018")[0].0, "2018");
    }

    #[test]
    fn hints_span_every_mention() {
        let h = date_hints("between december 2013 and october 2014").unwrap();
        assert_eq!(
            (h.date_start, h.date_end),
            (d("2013-12-01"), d("2014-10-31"))
        );
        assert_eq!(date_hints("no dates here"), None);
        let h = date_hints("may 16, 2000").unwrap();
        assert_eq!(h.date_start, h.date_end);
    }

    #[test]
    fn pointers_are_read_from_the_wording() {
        assert_eq!(
            pointer("at the mid-March 2020 meeting").part,
            Some((3, Part::Mid))
        );
        assert_eq!(pointer("in late-June 2000").part, Some((6, Part::Late)));
        assert_eq!(pointer("in early May 2001").part, Some((5, Part::Early)));
        assert_eq!(pointer("in March 2020").part, None);
        assert_eq!(pointer("at the final meeting of 2024").first, Some(false));
        assert_eq!(pointer("the first FOMC meeting of 2000").first, Some(true));
        assert_eq!(pointer("the first rate cut").first, None);
    }
}
