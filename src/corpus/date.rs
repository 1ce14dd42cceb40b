//! Calendar dates of documents.
use serde::{Deserialize, Serialize};

/// A calendar date `YYYY-MM-DD`; serialised as that string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Date {
    pub year: i32,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// Parses exactly `YYYY-MM-DD` with a valid month and day.
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u32> {
            let part = s.get(r)?;
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        let year = num(0..4)? as i32;
        let month = num(5..7)? as u8;
        let day = num(8..10)? as u8;
        ((1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month))
            .then_some(Date { year, month, day })
    }
}

pub use crate::calendar::MONTH_NAMES;

impl Date {
    /// `March 15, 2020`: how people write dates in questions.
    pub fn long_form(&self) -> String {
        let name = crate::calendar::month_name(u32::from(self.month)).unwrap_or("");
        format!("{name} {}, {}", self.day, self.year)
    }
}

/// Days in a month of the proleptic Gregorian calendar.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    crate::calendar::days_in_month(i64::from(year), u32::from(month)) as u8
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl From<Date> for String {
    fn from(d: Date) -> String {
        d.to_string()
    }
}

impl TryFrom<String> for Date {
    type Error = String;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Date::parse(&s).ok_or_else(|| format!("not a YYYY-MM-DD date: {s}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_valid_dates_only() {
        assert_eq!(
            Date::parse("2020-03-15"),
            Some(Date {
                year: 2020,
                month: 3,
                day: 15
            })
        );
        assert!(Date::parse("2020-02-29").is_some());
        assert!(Date::parse("2000-02-29").is_some());
        assert!(Date::parse("1900-02-29").is_none());
        assert!(Date::parse("2021-02-29").is_none());
        assert!(Date::parse("2021-04-31").is_none());
        assert!(Date::parse("2021-13-01").is_none());
        assert!(Date::parse("2021-00-10").is_none());
        assert!(Date::parse("2021-1-10").is_none());
        assert!(Date::parse("2021-01-10x").is_none());
        assert!(Date::parse("+021-01-10").is_none());
        assert!(Date::parse("").is_none());
    }

    #[test]
    fn serialises_as_the_string() {
        let d = Date::parse("2008-12-16").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"2008-12-16\"");
        assert_eq!(serde_json::from_str::<Date>("\"2008-12-16\"").unwrap(), d);
        assert!(serde_json::from_str::<Date>("\"2008-12-32\"").is_err());
    }
}
