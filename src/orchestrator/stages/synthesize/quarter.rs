//! The month a quarter's end names. Asked in which month purchases end, "by the end of the
//! second quarter" is the answer in the statement's words, not in the user's: the month is
//! worked out from the calendar (and, for "the current quarter", from the meeting's date) and
//! said beside the quoted sentence.

use crate::calendar::month_name;
use crate::corpus::Date;

/// Words naming a quarter, and which quarter of the year each is (`None`: counted from the
/// meeting's date, with how many quarters after it).
const QUARTERS: &[(&str, Option<u32>, u32)] = &[
    ("first", Some(1), 0),
    ("second", Some(2), 0),
    ("third", Some(3), 0),
    ("fourth", Some(4), 0),
    ("current", None, 0),
    ("this", None, 0),
    ("next", None, 1),
];

/// Whether lower-case `lower` names the end of a quarter ("by the end of the first quarter of
/// 2010", "the end of the current quarter"): a month, named by the calendar.
pub fn names_end(lower: &str) -> bool {
    end_named(lower).is_some()
}

/// The quarter whose end lower-case `lower` names (which of the year, or how many after the
/// meeting's), and the words naming it: "end of the second quarter", "end of this quarter".
fn end_named(lower: &str) -> Option<(Option<u32>, u32, String)> {
    QUARTERS.iter().find_map(|&(word, of_year, after)| {
        let the = format!("end of the {word} quarter");
        let bare = format!("end of {word} quarter");
        let phrase = if lower.contains(&the) {
            the
        } else if word == "this" && lower.contains(&bare) {
            bare
        } else {
            return None;
        };
        Some((of_year, after, phrase))
    })
}

/// "The end of the second quarter is the end of June." for a sentence naming the end of a
/// quarter ("… by the end of the second quarter of 2011"), the quarter read from the meeting's
/// `date` when the sentence counts from it ("the end of the current quarter"); `None` when the
/// sentence names no quarter's end.
pub fn its_month(sentence: &str, date: Option<Date>) -> Option<String> {
    let (of_year, after, phrase) = end_named(&sentence.to_lowercase())?;
    let quarter = match of_year {
        Some(q) => q,
        None => {
            let meeting = u32::from(date?.month).div_ceil(3);
            (meeting - 1 + after) % 4 + 1
        }
    };
    let month = month_name(quarter * 3)?;
    Some(format!("The {phrase} is the end of {month}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: i32, month: u8) -> Option<Date> {
        Some(Date {
            year,
            month,
            day: 1,
        })
    }

    #[test]
    fn a_quarters_end_is_said_as_its_month() {
        assert_eq!(
            its_month(
                "The Committee will complete purchases of $600 billion by the end of the second quarter of 2011.",
                date(2011, 4)
            )
            .as_deref(),
            Some("The end of the second quarter is the end of June.")
        );
        // Counted from the meeting: in November the current quarter ends in December, the
        // next in March.
        assert_eq!(
            its_month(
                "Purchases will be completed by the end of the current quarter.",
                date(2009, 11)
            )
            .as_deref(),
            Some("The end of the current quarter is the end of December.")
        );
        assert_eq!(
            its_month("… through the end of the next quarter.", date(2009, 11)).as_deref(),
            Some("The end of the next quarter is the end of March.")
        );
        // No meeting date, no count from it; no quarter, nothing to say.
        assert_eq!(its_month("By the end of the current quarter.", None), None);
        assert_eq!(
            its_month("Purchases will end in June.", date(2011, 4)),
            None
        );
        // What the schedule cue reads: a quarter's end, however it is counted.
        assert!(names_end("purchases end by the end of this quarter."));
        assert!(names_end("by the end of the first quarter of 2010"));
        assert!(!names_end("growth slowed in the first quarter."));
    }
}
