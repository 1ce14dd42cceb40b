//! The one calendar: the proleptic Gregorian rules, day counts from the Unix epoch, and English
//! month names. Document dates, query dates, session timestamps and HTTP dates all use it.

/// English month names, January first.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days in `month` (1–12) of `year`; 0 for a month that does not exist.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        _ => 0,
    }
}

/// The full English name of `month` (1–12).
pub fn month_name(month: u32) -> Option<&'static str> {
    MONTH_NAMES
        .get(usize::try_from(month).ok()?.checked_sub(1)?)
        .copied()
}

/// The month a word names, case-insensitively: a full name, a three-letter abbreviation, or
/// "sept"; a trailing full stop is allowed ("Dec.").
pub fn month_from_name(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w == "sept" {
        return Some(9);
    }
    MONTH_NAMES
        .iter()
        .position(|name| {
            let name = name.to_ascii_lowercase();
            w == name || (w.len() == 3 && name.starts_with(&w))
        })
        .map(|i| i as u32 + 1)
}

/// Days since 1970-01-01 of a date, counted in 400-year eras (146 097 days each) with years
/// starting in March, so the leap day falls last and no table of month lengths is needed.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 → (year, month, day): the inverse of [`days_from_civil`].
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468; // shift the epoch to 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of era, 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // March = 0
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn month_lengths_and_leap_years() {
        assert_eq!(days_in_month(2000, 2), 29, "century divisible by 400");
        assert_eq!(days_in_month(1900, 2), 28, "century not divisible by 400");
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2023, 2), 28);
        assert_eq!(days_in_month(2023, 4), 30);
        assert_eq!(days_in_month(2023, 12), 31);
        assert_eq!(days_in_month(2023, 13), 0);
        assert_eq!(days_in_month(2023, 0), 0);
    }

    #[test]
    fn month_names_both_ways() {
        assert_eq!(month_name(1), Some("January"));
        assert_eq!(month_name(12), Some("December"));
        assert_eq!(month_name(0), None);
        assert_eq!(month_name(13), None);
        for (word, m) in [
            ("January", 1),
            ("jan", 1),
            ("Sept", 9),
            ("sep", 9),
            ("Dec.", 12),
            ("MAY", 5),
        ] {
            assert_eq!(month_from_name(word), Some(m), "{word}");
        }
        for word in ["ja", "janu", "mayday", "", "13"] {
            assert_eq!(month_from_name(word), None, "{word}");
        }
    }

    #[test]
    fn epoch_days_of_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    proptest! {
        #[test]
        fn days_round_trip(z in -1_000_000i64..1_000_000) {
            let (y, m, d) = civil_from_days(z);
            prop_assert!((1..=12).contains(&m));
            prop_assert!(d >= 1 && d <= days_in_month(y, m));
            prop_assert_eq!(days_from_civil(y, m, d), z);
        }
    }
}
