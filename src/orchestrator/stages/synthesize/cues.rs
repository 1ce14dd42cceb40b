//! How strongly a sentence offers what a question asks for ([`crate::orchestrator::asks::Asks`]): the words of
//! decisions, reasons, votes, schedules, amounts, guidance and characterisations, as policy
//! documents write them.

use crate::orchestrator::asks::{any, Asks};

/// Verbs that record a decision.
const DECIDED: &[&str] = &[
    "decided",
    "voted to",
    "voted today",
    "agreed to",
    "agreed that",
    "authorized",
    "approved",
    "established",
    "adopted",
    "directed",
    "announced",
    "will begin",
    "will purchase",
    "will lend",
    "will reduce",
    "will increase",
    "will slow",
    "will conclude",
    "will continue",
    "will maintain",
    "will roll",
    "will reinvest",
    "will provide",
    "intends to",
    "decision",
    "to extend",
    "reaffirm",
    "voted unanimously",
    "will be closing",
    "will close",
];

const REASON_STRONG: &[&str] = &[
    "in light of",
    "because",
    "to support",
    "owing to",
    " owes ",
    "in view of",
    "due to",
    "rationale",
    "reason",
    "insurance",
    "as a result of",
    "in order to",
    "in response to",
    "to help",
    "given the",
    "given that",
    "reflecting",
    "to foster",
    "to promote",
    "would help",
    "so as to",
    "intended to",
    "designed to",
    "aimed at",
    "with a view to",
    "so that",
    "to counter",
    "to offset",
    " pending",
    "premature",
    "prudent",
    "warranting",
    "concerned that",
    "worried that",
    "should help",
    "could help",
    "will help",
    "help to ",
];
/// A turn in conditions, which a statement gives as the reason for its action ("sales and
/// production weakened further", "the recent intensification of the financial crisis").
const REASON_WEAK: &[&str] = &[
    "weaken",
    "weak ",
    "eroded",
    "erosion",
    "soften",
    "deteriorat",
    "damp",
    "intensif",
    "strains",
    "concern",
    "judged that",
    "uncertain",
    "risk",
    "since ",
    "to assess",
    "warrant",
    "appropriate",
    "effects of",
    "developments",
];

/// Words of forward guidance: what the Committee expects to do and for how long.
const GUIDANCE: &[&str] = &[
    "believes",
    "anticipates",
    "expects",
    "likely to",
    "can be",
    "will be appropriate",
    "considerable period",
    "extended period",
    "patient",
    "measured",
    "for some time",
    "judges that",
    "will depend",
    "well past",
    "until",
    "take into account",
    "in determining",
    "will assess",
    "will monitor",
];

const VOTE: &[&str] = &[
    "voting against",
    "voted against",
    "dissent",
    "prefer",
    "abstain",
    "objected",
    "opposed",
    "would have favored",
    "would favor",
];

/// Whether a (lower-case) sentence tells of a dissent or a preference other than the
/// Committee's ("Voting against …", "… preferred to maintain …").
pub fn tells_of_dissent(lower: &str) -> bool {
    any(lower, VOTE)
}

const STARTS_OR_ENDS: &[&str] = &[
    "begin",
    "beginning",
    "start",
    "starting",
    "through",
    "until",
    "by the end of",
    "end of",
    "effective",
    "expire",
    "conclude",
    "complete",
    "finish",
    "commenc",
    "as of",
    "in ",
    "from ",
    "by ",
];

const AMOUNT_UNITS: &[&str] = &["billion", "million", "trillion"];

const DESCRIBES: &[&str] = &[
    "information received",
    "indicates",
    "suggests",
    "has been",
    "have been",
    "remained",
    "remains",
    "remain ",
    "expanding",
    "expanded",
    "weakened",
    "improved",
    "softened",
    "slowed",
    "eased",
    "declined",
    "moderate",
    "solid",
    "strong",
    "elevated",
    "sluggish",
    "firmer",
    "brisk",
    "weak",
    "economic activity",
    "labor market",
    "inflation",
    "spending",
    "job gains",
    "unemployment",
    "growth",
];

/// Whether a sentence says what someone preferred, feared or argued.
pub fn states_preference(sentence: &str) -> bool {
    any(
        &sentence.to_lowercase(),
        &[
            "prefer",
            "favor",
            "concern",
            "worr",
            "believ",
            "view",
            "judg",
            "emphasiz",
            "object",
            "argu",
            "fear",
            "would have",
            "wanted",
            "saw ",
            "because",
            "oppos",
        ],
    )
}

/// Whether lower-case `s` says what the Committee stands ready to do, conditionally or next
/// ("will provide additional accommodation as needed", "will act as appropriate", "is prepared
/// to increase or reduce the pace", "anticipates that some additional policy firming may be
/// appropriate", "will, at its coming meetings, assess …", "the extent and timing of any
/// additional firming that may be needed … will depend on …").
pub fn intends(lower: &str) -> bool {
    any(
        lower,
        &[
            "as needed",
            "act as appropriate",
            "prepared to",
            "stands ready",
            "anticipates that",
            "coming meetings",
            "will depend on",
            "may be needed",
        ],
    )
}

/// Whether lower-case `s` says what further policy will depend on ("the extent and timing of
/// any additional firming that may be needed … will depend on …"): conditional guidance, not a
/// description of the economy. (A pledge of readiness, "will act as appropriate", may be what
/// a description question asks for.)
pub fn conditions_policy(lower: &str) -> bool {
    any(lower, &["will depend on", "may be needed"])
}

/// Whether lower-case `lower` says what the Committee seeks, expects or will do, not how things
/// stand ("with appropriate firming …, the committee expects inflation to return to its 2
/// percent objective and the labor market to remain strong", "the committee seeks to achieve
/// maximum employment …", the standing watch): asked how conditions were described, it holds
/// the question's words without describing them.
pub fn looks_ahead(lower: &str) -> bool {
    standing_watch(lower)
        || any(
            lower,
            &[
                "the committee expects",
                "the committee seeks",
                "the committee anticipates",
                "the committee will ",
                "the committee is strongly committed",
                "the committee remains strongly committed",
            ],
        )
}

/// Whether three-word `sentence` states something ("Inflation remains elevated.", "Employment
/// was improving."): its second word is a verb of how things stand or moved. The statements'
/// shortest sentences are their characterisations; other three-word pieces ("Treasury
/// securities market.", "Louis as alternate.") are fragments of a list or a heading.
pub fn states_briefly(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    words.len() == 3
        && matches!(
            words[1],
            "is" | "was"
                | "are"
                | "were"
                | "remains"
                | "remained"
                | "has"
                | "have"
                | "rose"
                | "fell"
                | "eased"
                | "increased"
                | "declined"
                | "moderated"
                | "slowed"
                | "improved"
                | "strengthened"
                | "weakened"
        )
}

/// Whether lower-case `lower` says how something stands now ("the inflation outlook remains
/// highly uncertain", "inflation has been high").
pub fn tells_how_it_stands(lower: &str) -> bool {
    any(lower, &[" remains ", " has been ", " have been "])
}

/// Whether lower-case `s` is the statement's standing watch over what comes ("the Committee will
/// continue to monitor the implications of incoming information …", "the Committee's
/// assessments will take into account a wide range of information …", "would be prepared to
/// adjust the stance of monetary policy as appropriate if risks emerge …"): said at every
/// meeting of a period, it gives no meeting's reason.
pub fn standing_watch(lower: &str) -> bool {
    any(
        lower,
        &[
            "will continue to monitor the implications of incoming information",
            "will take into account a wide range of information",
            "prepared to adjust the stance of monetary policy as appropriate if risks emerge",
        ],
    )
}

/// Whether lower-case `lower` lists those who voted for the action ("voting for the monetary policy
/// action were jerome h. powell, chair; …").
pub fn lists_votes_for(lower: &str) -> bool {
    // "Voting (by notation) for the monetary policy action were …", "Voting in favor of the
    // policy announcement were …" and the older minutes' "Votes for this action: …" are the
    // same roll call.
    let lower = lower.replacen(" (by notation)", "", 1);
    [
        "voting for",
        "voted for",
        "votes for",
        "voting in favor of",
        "voting in favour of",
    ]
    .iter()
    .any(|opening| lower.starts_with(opening))
}

/// Whether lower-case `lower` is the vote handing the directive to the New York Desk ("… voted to
/// authorize and direct the Federal Reserve Bank of New York …").
pub fn hands_directive(lower: &str) -> bool {
    lower.contains("authorize and direct the federal reserve bank of new york")
}

/// Whether lower-case `lower` says how a vote went: unanimously, by notation, by a count ("by a
/// 12 – 0 vote"), all but some members, or the roll call of those voting for.
pub fn tells_tally(lower: &str) -> bool {
    lists_votes_for(lower)
        || any(
            lower,
            &[
                "unanimous",
                "by notation",
                " 0 vote",
                "-0 vote",
                "all but one",
                "all but two",
                "all but three",
                "all but four",
            ],
        )
}

/// Whether lower-case `s` tells of wording taken out of the statement ("members agreed to
/// remove the sentence indicating …", "a proposal to delete … the previous summary statement",
/// "policy should no longer be characterized as accommodative").
pub fn removes_wording(lower: &str) -> bool {
    any(
        lower,
        &[
            "remov",
            "delet",
            "drop ",
            "dropped",
            "dropping",
            "omit",
            "no longer",
            "take out",
            "taking out",
            "eliminat",
        ],
    ) && crate::orchestrator::asks::WORDING
        .iter()
        .any(|w| lower.contains(w))
}

/// Whether lower-case `s` sets the date of the next meeting ("It was agreed that the next
/// meeting of the Committee would be held on Tuesday, October 28, 2008.").
pub fn sets_next_meeting(lower: &str) -> bool {
    lower.contains("next meeting") && any(lower, &["be held", "scheduled"])
}

/// Whether lower-case `lower` names a month other than `months` ("may" is left out: it is
/// mostly the verb).
pub fn names_another_month(lower: &str, months: &[String]) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !months.iter().any(|m| m == w) && *w != "may")
        .any(|w| {
            crate::calendar::MONTH_NAMES
                .iter()
                .any(|m| m.eq_ignore_ascii_case(w))
        })
}

/// Whether lower-case `lower` counts `who` ("participants" or "members"): "several
/// participants", "two members", "a majority of participants".
pub fn counts_people(lower: &str, who: &str) -> bool {
    const HOW_MANY: &[&str] = &[
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "several",
        "a few",
        "a couple of",
        "few",
        "some",
        "many",
        "most",
        "all",
        "a number of",
        "a majority of",
        "a minority of",
    ];
    HOW_MANY.iter().any(|n| {
        let counted = format!("{n} {who}");
        lower.match_indices(&counted).any(|(i, _)| {
            lower[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// Whether lower-case `lower` says how sure someone is ("the extent of these effects remains
/// uncertain", "members were confident that …", "it was unclear whether …").
pub fn tells_sureness(lower: &str) -> bool {
    any(
        lower,
        &["uncertain", "certain", "confiden", "unclear", "doubt"],
    )
}

/// Whether lower-case `lower` says whose request an action granted ("the Board approved the
/// requests submitted by the Boards of Directors of the Federal Reserve Banks of …").
pub fn tells_requesters(lower: &str) -> bool {
    any(
        lower,
        &[
            "requests submitted by",
            "request submitted by",
            "requested by",
            "at the request of",
            "on the requests of",
        ],
    )
}

/// Whether lower-case `lower` speaks of the period of `months`: "during September" of one
/// month, every month named of several ("received in the calendar months of July and August").
pub fn tells_of_period(lower: &str, months: &[String]) -> bool {
    match months {
        [month] => lower.contains(&format!("during {month}")),
        _ => months
            .iter()
            .all(|m| lower.split(|c: char| !c.is_alphanumeric()).any(|w| w == m)),
    }
}

/// Whether lower-case `s` tells of the members weighing the policy action ("most members
/// judged it appropriate …", "all of the members favored raising …"): in the minutes the voters'
/// judgement is where a decision's reasons are given, the participants' views being the wider
/// outlook discussion.
pub fn members_weigh(lower: &str) -> bool {
    lower.contains("members")
        && any(
            lower,
            &[
                "agreed",
                "judged",
                "concluded",
                "considered",
                "favored",
                "favoured",
                "believed",
                "thought",
                "noted",
                "saw ",
            ],
        )
}

/// Whether the sentence gives waiting for more information as the course taken: the usual
/// reason for not acting yet ("decided … to wait for some further evidence").
pub fn waits(lower: &str) -> bool {
    any(
        lower,
        &[
            "wait for",
            "to wait",
            "await",
            "further evidence",
            "further information",
            "further confirmation",
            "more evidence",
            "more information",
            "before reaching",
            "for the time being",
            "premature",
        ],
    )
}

/// The sentence without the month of an earlier meeting ("since the Committee met in June"):
/// it dates the information, not what begins or ends.
fn without_past_meetings(sentence: &str) -> String {
    let mut out = sentence.to_string();
    for m in crate::calendar::MONTH_NAMES {
        for lead in ["met in ", "meeting in ", "since "] {
            out = out.replace(&format!("{lead}{m}"), lead);
        }
    }
    out
}

/// Whether a sentence tells of an earlier meeting than its own document's, held in `month` (1–12):
/// minutes recount the last meeting's decision ("At its June meeting, the FOMC decided to
/// raise …", "since mid-December, when the Committee raised …"), which is not this meeting's.
pub fn names_other_meeting(sentence: &str, month: u32) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        let Some(m) = crate::calendar::MONTH_NAMES
            .iter()
            .position(|n| n == w || w.strip_prefix("mid").is_some_and(|r| r == *n))
        else {
            return false;
        };
        let before = &words[i.saturating_sub(3)..i];
        let after = &words[i + 1..(i + 5).min(words.len())];
        let a_meeting = after.contains(&"meeting")
            || before.contains(&"meeting")
            || before.contains(&"since")
            || w.starts_with("mid");
        // Months back from the document's: an earlier meeting is up to half a year back; a
        // month ahead ("as early as the Committee's May meeting") is a plan, not a decision.
        let back = (month + 12 - (m as u32 + 1)) % 12;
        a_meeting && (1..=6).contains(&back)
    })
}

/// Whether the text names a month (the schedule questions' answer): a month's full name,
/// capitalised, so "the Committee may act" names none.
pub fn names_month(sentence: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphabetic())
        .any(|w| crate::calendar::MONTH_NAMES.contains(&w))
}

/// Whether the text states a figure followed by a unit: `$4 billion`, `2 percent`, `25 basis
/// points`.
fn states_figure(lower: &str) -> bool {
    lower.contains('$')
        || lower
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| {
                w[0].chars().any(|c| c.is_ascii_digit())
                    && (w[1].starts_with("percent") || w[1].starts_with("basis"))
            })
}

/// Whether `sentence` states a figure and names one of `months` (capitalised, so "the
/// Committee may act" names no May): "Unemployment edged up further in May, to 6.1 percent"
/// gives a figure of May. A month naming a meeting ("At its March meeting, the Committee
/// decided to increase the target … to 2-3/4 percent") gives none.
pub fn states_figure_of(sentence: &str, months: &[&str]) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let of_month = words.iter().enumerate().any(|(i, w)| {
        months.contains(w)
            && !matches!(
                words.get(i + 1),
                Some(&("meeting" | "FOMC" | "Committee" | "statement" | "minutes"))
            )
    });
    of_month && states_figure(&sentence.to_lowercase())
}

/// Whether `sentence` decides the policy rate, with its figure ("decided today to lower the
/// target range … to 1 to 1-1/4 percent"): what a question setting the rate move aside, or
/// asking for a description beside it, does not want.
pub fn decides_rate(sentence: &str) -> bool {
    cue(Asks::Rate, sentence) >= 1.0
}

/// How strongly `sentence` offers what the question asks for, 0 to 1.
pub fn cue(asks: Asks, sentence: &str) -> f64 {
    let s = sentence.to_lowercase();
    let s = s.as_str();
    match asks {
        Asks::Rate => {
            // A dissenter's preferred move is not the Committee's, nor is the Board's vote on
            // the rates it sets (interest on reserves, the discount rate).
            let boards_rate = s.contains("board of governors")
                && any(
                    s,
                    &[
                        "interest rate paid",
                        "reserve balances",
                        "excess reserves",
                        "primary credit",
                        "discount rate",
                    ],
                );
            if any(s, VOTE) || boards_rate {
                return 0.0;
            }
            let rate = any(s, &["federal funds rate", "target range", "funds rate"]);
            // A decision is in the past or "today"; "anticipates that … will be appropriate
            // to raise" is guidance about later meetings, not this meeting's move.
            let decided = any(
                s,
                &[
                    "decided",
                    "voted",
                    "today",
                    "reaffirmed",
                    "agreed",
                    "lowered",
                    "raised",
                ],
            );
            let guidance = any(
                s,
                &[
                    "anticipates",
                    "expects",
                    "will be appropriate",
                    "in determining",
                ],
            );
            if guidance && !decided {
                return if rate { 0.2 } else { 0.0 };
            }
            match (rate, decided, states_figure(s)) {
                (true, true, true) => 1.0,
                (true, true, false) | (true, false, true) => 0.6,
                (true, false, false) => 0.3,
                _ => 0.0,
            }
        }
        Asks::Guidance => {
            if any(s, GUIDANCE) {
                1.0
            } else if any(s, &["will", "future", "coming"]) {
                0.4
            } else {
                0.0
            }
        }
        Asks::Decision => {
            if any(s, DECIDED) {
                1.0
            } else if any(
                s,
                &[
                    "the committee will",
                    "will be",
                    "plans to",
                    "expects to",
                    "believes",
                    "anticipates",
                    "judges",
                    "likely to",
                    "can be",
                    "intend",
                ],
            ) {
                0.5
            } else {
                0.0
            }
        }
        Asks::Reason => {
            // Minutes record the reasons for a decision as the members' judgement in the
            // policy discussion ("most members agreed that the outlook had deteriorated by
            // enough to warrant …"); participants' views are the wider outlook discussion.
            let committee = any(
                s,
                &[
                    "members",
                    "the committee's judgment",
                    "the committee judged",
                ],
            );
            let judged = any(
                s,
                &[
                    "agreed",
                    "judged",
                    "concluded",
                    "considered",
                    "concerned",
                    "were seen as",
                    "viewed",
                    "believed",
                    "judgment",
                ],
            );
            // "Members agreed that accommodation should be provided through …" prescribes the
            // means, not the reason.
            let prescribes = any(s, &[" should ", "decided"]);
            // "With the unemployment rate nearing 6-1/2 percent, the Committee has updated its
            // forward guidance": the circumstance opens the sentence of the action.
            let opens_with_circumstance = ["with ", "given ", "as a result", "in view of"]
                .iter()
                .any(|o| s.starts_with(o))
                && s.contains(", the committee");
            // The Committee's reading of the risks is the reason its statements give for a
            // move: "downside risks to employment have risen", "the balance of risks".
            let weighs_risks = any(
                s,
                &[
                    "downside risk",
                    "upside risk",
                    "balance of risks",
                    "risks have",
                ],
            );
            // A dissenter's reason is not the Committee's: asked why the Committee acted,
            // "Voting against was X, who believed that, in light of …" does not answer.
            if any(s, &["voting against", "voted against", "dissent"]) {
                0.0
            } else if any(s, REASON_STRONG)
                || (committee && judged && !prescribes)
                || opens_with_circumstance
                || waits(s)
                || weighs_risks
            {
                1.0
            } else if any(s, REASON_WEAK) {
                0.5
            } else {
                0.0
            }
        }
        Asks::Vote => {
            if any(s, VOTE) {
                1.0
            } else if any(s, &["voting for", "voted for", "unanimous"]) {
                0.3
            } else {
                0.0
            }
        }
        Asks::Schedule => {
            // "By the end of the first quarter" names a month as surely as "by March".
            let month =
                names_month(&without_past_meetings(sentence)) || super::quarter::names_end(s);
            let when = any(s, STARTS_OR_ENDS);
            match (month, when) {
                (true, true) => 1.0,
                (true, false) => 0.6,
                (false, true) => 0.2,
                _ => 0.0,
            }
        }
        Asks::Amount => {
            if s.contains('$') && any(s, AMOUNT_UNITS) {
                1.0
            } else if states_figure(s) {
                0.7
            } else if s.chars().any(|c| c.is_ascii_digit()) {
                0.3
            } else {
                0.0
            }
        }
        Asks::Description => {
            let n = DESCRIBES.iter().filter(|c| s.contains(*c)).count();
            (n as f64 / 3.0).min(1.0)
        }
        Asks::Other => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::asks::{asks_vote_detail, asks_why_not};

    #[test]
    fn a_figure_of_a_month_is_told_from_a_meetings() {
        let months = ["March"];
        assert!(states_figure_of(
            "The unemployment rate edged down to 5.2 percent in March.",
            &months
        ));
        assert!(!states_figure_of(
            "At its March meeting, the Committee decided to increase the target level of the federal funds rate 25 basis points, to 2-3/4 percent.",
            &months
        ));
        assert!(!states_figure_of(
            "Payrolls rose solidly in March.",
            &months
        ));
    }

    #[test]
    fn what_the_committee_expects_is_told_from_how_things_stand() {
        let expects = "with appropriate firming in the stance of monetary policy, the committee expects inflation to return to its 2 percent objective and the labor market to remain strong.";
        assert!(looks_ahead(expects) && !tells_how_it_stands(expects));
        let both = "the committee expects inflation to moderate later this year, but the inflation outlook remains highly uncertain.";
        assert!(looks_ahead(both) && tells_how_it_stands(both));
        let now = "job gains have been strong in recent months, and the unemployment rate has declined substantially.";
        assert!(!looks_ahead(now) && tells_how_it_stands(now));
        // The statements' assessment sentence is the standing watch.
        assert!(looks_ahead("the committee's assessments will take into account a wide range of information, including readings on labor market conditions."));
    }

    #[test]
    fn a_three_word_sentence_states_something_or_is_a_fragment() {
        assert!(states_briefly("Inflation remains elevated."));
        assert!(states_briefly("Employment was improving."));
        assert!(!states_briefly("Treasury securities market."));
        assert!(!states_briefly("Louis as alternate."));
        assert!(!states_briefly("Inflation remains elevated in housing."));
    }

    #[test]
    fn a_count_of_people_is_told() {
        let s = "several participants favored maintaining the existing target range.";
        assert!(counts_people(s, "participants"));
        assert!(!counts_people(s, "members"));
        assert!(counts_people("almost all members agreed.", "members"));
        // A count word must stand as a word: "none" is no "one".
        assert!(!counts_people("none participants", "participants"));
        assert!(!counts_people(
            "participants discussed the outlook for inflation.",
            "participants"
        ));
    }

    #[test]
    fn saying_how_sure_is_told() {
        assert!(tells_sureness(
            "the extent of these effects remains uncertain."
        ));
        assert!(tells_sureness(
            "members were not confident that inflation would fall."
        ));
        assert!(!tells_sureness(
            "tighter credit conditions are likely to weigh on economic activity."
        ));
    }

    #[test]
    fn another_month_is_told_from_the_ones_asked_about() {
        let months = |ms: &[&str]| ms.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        let october = "effective in october, the committee directs the desk to roll over …";
        assert!(names_another_month(october, &months(&["september"])));
        assert!(!names_another_month(october, &months(&["october"])));
        // "May" as a word is mostly the verb.
        assert!(!names_another_month(
            "the committee may adjust the pace during september.",
            &months(&["september"])
        ));
        let summer =
            "reinvest … received in the calendar months of july and august that exceeds a cap";
        let after = "starting in the calendar month of september, reinvest …";
        let both = months(&["july", "august"]);
        assert!(tells_of_period(summer, &both));
        assert!(!tells_of_period(after, &both));
        assert!(names_another_month(after, &both));
        assert!(tells_of_period(
            "payments received during september",
            &months(&["september"])
        ));
        assert!(!tells_of_period(after, &months(&["september"])));
    }

    #[test]
    fn the_members_weighing_the_action_is_told() {
        for s in [
            "though the economic recovery was continuing, members considered progress as having been disappointingly slow.",
            "in the committee's discussion of policy, all of the members favored raising the target.",
        ] {
            assert!(members_weigh(s), "{s}");
        }
        // Participants' views and the members' attendance weigh nothing.
        for s in [
            "participants judged that the recovery was continuing.",
            "the members of the committee voted to elect the chair.",
        ] {
            assert!(!members_weigh(s), "{s}");
        }
    }

    #[test]
    fn how_a_vote_went_is_told() {
        for s in [
            "the federal open market committee approved the following statement for release by a 12 – 0 vote:",
            "voting (by notation) for the monetary policy action were jerome h. powell, chair; john c. williams, vice chair.",
            "on this basis, all but two members agreed to lower the target range for the federal funds rate.",
            "the committee voted unanimously to reaffirm it without revision.",
        ] {
            assert!(tells_tally(s), "{s}");
        }
        assert!(lists_votes_for(
            "voting (by notation) for the monetary policy action were jerome h. powell, chair."
        ));
        assert!(!tells_tally(
            "mr. poole dissented because he believed that policy was already stimulative."
        ));
        assert!(!tells_tally(
            "the committee decided to raise the target range to 4 percent."
        ));
        assert!(hands_directive("the committee voted unanimously to authorize and direct the federal reserve bank of new york, until instructed otherwise, to execute transactions."));
        assert!(!hands_directive(
            "the committee directs the desk to continue rolling over at auction all principal payments."
        ));
    }

    #[test]
    fn conditional_guidance_is_told_from_a_pledge() {
        assert!(conditions_policy("the extent and timing of any additional firming that may be needed to address these risks will depend on the evolution of the outlook."));
        assert!(!conditions_policy("the committee will use its full range of tools and act as appropriate to support the economy."));
        assert!(!conditions_policy(
            "the economy seems likely to expand at a moderate pace."
        ));
    }

    #[test]
    fn the_roll_call_of_those_voting_for_is_known() {
        assert!(lists_votes_for("voting for the monetary policy action were jerome h. powell, chair; john c. williams, vice chair."));
        assert!(lists_votes_for("voting in favor of the policy announcement were: ben s. bernanke, chairman; timothy f. geithner, vice chairman."));
        assert!(lists_votes_for(
            "votes for this action: messrs. greenspan, broaddus, and ferguson."
        ));
        assert!(!lists_votes_for("votes against this action: mr. hoenig."));
        assert!(!lists_votes_for(
            "voting against this action was michelle w. bowman."
        ));
        assert!(!lists_votes_for(
            "the committee voted unanimously to authorize the desk."
        ));
    }

    #[test]
    fn the_standing_watch_is_told_from_a_meetings_reason() {
        assert!(standing_watch("in assessing the appropriate stance of monetary policy, the committee will continue to monitor the implications of incoming information for the economic outlook."));
        assert!(standing_watch("the committee would be prepared to adjust the stance of monetary policy as appropriate if risks emerge that could impede the attainment of the committee's goals."));
        assert!(standing_watch("the committee's assessments will take into account a wide range of information, including readings on public health."));
        assert!(standing_watch("this assessment will take into account a wide range of information, including measures of labor market conditions."));
        assert!(!standing_watch("the invasion and related events are creating additional upward pressure on inflation and are weighing on global economic activity."));
        assert!(!standing_watch("progress on vaccinations and an easing of supply constraints are expected to support continued gains in economic activity."));
    }

    #[test]
    fn the_sentence_setting_the_next_meeting_is_known() {
        assert!(sets_next_meeting(
            "it was agreed that the next meeting of the committee would be held on tuesday, october 28, 2008."
        ));
        assert!(sets_next_meeting(
            "the next meeting of the committee was scheduled to be held on tuesday, august 10, 2004."
        ));
        assert!(!sets_next_meeting(
            "members expected to learn more before the next meeting."
        ));
    }

    #[test]
    fn sentences_offering_the_asked_thing_score_higher() {
        let decision =
            "The Federal Reserve announced today an expansion of its securities lending program.";
        let preamble = "Since the coordinated actions taken in December 2007, the G-10 central banks have continued to work together closely.";
        assert!(cue(Asks::Decision, decision) > cue(Asks::Decision, preamble));
        let reason =
            "The Committee took this action in light of the implications of developments abroad.";
        assert!(cue(Asks::Reason, reason) > cue(Asks::Reason, preamble));
        let vote = "Voting against the action was Jeffrey M. Lacker, who preferred to raise the target range.";
        assert_eq!(cue(Asks::Vote, vote), 1.0);
        assert_eq!(cue(Asks::Vote, decision), 0.0);
        let when = "The Committee will begin balance sheet normalization in October.";
        let no_month = "The Committee will begin balance sheet normalization soon.";
        assert!(cue(Asks::Schedule, when) > cue(Asks::Schedule, no_month));
        let amount =
            "The Committee will purchase up to $300 billion of longer-term Treasury securities.";
        assert!(cue(Asks::Amount, amount) > cue(Asks::Amount, when));
        let rate = "The Committee decided today to lower its target for the federal funds rate by 25 basis points to 2 percent.";
        assert_eq!(cue(Asks::Rate, rate), 1.0);
        let later = "The Committee anticipates that it will be appropriate to raise the target range for the federal funds rate when inflation rises.";
        assert!(cue(Asks::Rate, later) < cue(Asks::Rate, rate) / 2.0);
        assert_eq!(
            cue(Asks::Rate, vote),
            0.0,
            "a dissenter's preference is not the decision"
        );
        let guidance = "The Committee believes that policy accommodation can be maintained for a considerable period.";
        assert_eq!(cue(Asks::Guidance, guidance), 1.0);
        assert_eq!(cue(Asks::Guidance, preamble), 0.0);
        assert!(cue(Asks::Rate, preamble) < 0.5);
        assert_eq!(cue(Asks::Other, rate), 0.0);
        let board = "Consistent with the Committee's decision to leave the target range for the federal funds rate unchanged, the Board of Governors voted unanimously to raise the interest rate paid on reserve balances to 1.60 percent.";
        assert_eq!(
            cue(Asks::Rate, board),
            0.0,
            "the Board's rate, not the target"
        );
        let completed = "Consistent with the Committee's decision to lower the target range for the federal funds rate to 1 to 1-1/4 percent, the Board of Governors completed unanimous votes to lower the interest rate paid on required and excess reserve balances to 1.10 percent.";
        assert_eq!(cue(Asks::Rate, completed), 0.0);
    }

    #[test]
    fn another_meetings_decision_is_recognised() {
        let june = "At its June meeting, the Federal Open Market Committee (FOMC) decided to raise its target for the federal funds rate 25 basis points.";
        assert!(names_other_meeting(june, 8));
        assert!(!names_other_meeting(june, 6), "its own meeting");
        let dated = "At its meeting on March 16, 2004, the Federal Open Market Committee decided to keep its target unchanged at 1 percent.";
        assert!(names_other_meeting(dated, 5));
        let two_day = "At its April 29-30 meeting, the FOMC lowered its target for the federal funds rate 25 basis points.";
        assert!(names_other_meeting(two_day, 6));
        let since = "Over the period since mid-December, when the Committee raised the target range, conditions changed little.";
        assert!(names_other_meeting(since, 3));
        let today = "The Committee decided today to raise the target range to 1 to 1-1/4 percent, and expects to begin in September.";
        assert!(
            !names_other_meeting(today, 6),
            "a month that is not a meeting's"
        );
        let ahead = "Beginning to reduce the balance sheet would be appropriate at a coming meeting, possibly as early as at the Committee's May meeting.";
        assert!(!names_other_meeting(ahead, 3), "a later meeting is a plan");
        assert!(names_other_meeting(
            "At its December meeting, the FOMC lowered its target.",
            1
        ));
    }

    #[test]
    fn why_not_questions_and_waiting_reasons() {
        assert!(asks_why_not("Why did the Fed hold off on cutting in 2019?"));
        assert!(asks_why_not("What was the reason for not raising rates?"));
        assert!(asks_why_not("why didn't they move?"));
        assert!(!asks_why_not("Why did the Committee cut rates?"));
        assert!(waits(
            "the committee decided to wait for further evidence of progress."
        ));
        assert!(!waits("the committee decided to lower the target range."));
    }

    #[test]
    fn the_committees_reading_of_the_risks_is_a_reason() {
        let risks = "The Committee is attentive to the risks to both sides of its dual mandate and judges that downside risks to employment have risen.";
        assert_eq!(cue(Asks::Reason, risks), 1.0);
        let mere = "Risks to the economic outlook appear roughly balanced.";
        assert!(cue(Asks::Reason, mere) < 1.0);
    }

    #[test]
    fn the_end_of_a_quarter_is_a_schedule_as_a_month_is() {
        let quarter = "The Committee anticipates that these transactions will be executed by the end of the first quarter of 2010.";
        let vague = "The Committee anticipates that these transactions will be executed over time.";
        assert_eq!(cue(Asks::Schedule, quarter), 1.0);
        assert!(cue(Asks::Schedule, vague) < 1.0);
    }

    #[test]
    fn the_month_of_an_earlier_meeting_is_no_schedule() {
        let since = "Information received since the Federal Open Market Committee met in June indicates that growth rebounded.";
        let begins =
            "Beginning in September, the Committee will add to its holdings at a slower pace.";
        assert!(cue(Asks::Schedule, begins) > cue(Asks::Schedule, since));
        assert!(cue(Asks::Schedule, since) <= 0.2);
    }

    #[test]
    fn asked_what_wording_was_dropped_its_removal_answers() {
        use crate::orchestrator::asks::asks_removal;
        assert!(asks_removal(
            "Which phrase did the Committee drop from its statement in September 2018?"
        ));
        assert!(asks_removal(
            "Per the April 2014 minutes, what did the Committee take out of its statement?"
        ));
        // A fall in prices is no removal, and a removal of accommodation is no wording.
        assert!(!asks_removal(
            "What did the statement say about the drop in energy prices?"
        ));
        assert!(!asks_removal(
            "Why did the Committee decide to remove accommodation in 2004?"
        ));
        assert!(removes_wording(
            "with regard to the postmeeting statement, members agreed to remove the sentence indicating that the stance remains accommodative."
        ));
        assert!(removes_wording(
            "in these circumstances, the committee thought that policy should no longer be characterized as accommodative."
        ));
        assert!(!removes_wording(
            "members judged it appropriate to continue removing policy accommodation gradually."
        ));
    }

    #[test]
    fn asked_what_comes_next_the_committees_readiness_answers() {
        use crate::orchestrator::asks::asks_what_next;
        assert!(asks_what_next(
            "What did the FOMC promise in August 2012 about further easing?"
        ));
        assert!(asks_what_next(
            "Beyond the cut, what did the FOMC say it would do next?"
        ));
        assert!(!asks_what_next("What did the FOMC decide in March 2020?"));
        assert!(intends(
            "the committee will provide additional accommodation as needed to promote a recovery."
        ));
        assert!(intends(
            "the committee anticipates that some additional policy firming may be appropriate."
        ));
        assert!(!intends(
            "the committee decided today to raise the target range to 4-3/4 to 5 percent."
        ));
    }

    #[test]
    fn a_vote_question_can_ask_for_the_dissenters_preference() {
        assert!(asks_vote_detail(
            "Who dissented in 2012, and what did he fear?"
        ));
        assert!(asks_vote_detail(
            "How did the lone dissenter read inflation expectations in June 2008?"
        ));
        assert!(asks_vote_detail(
            "Which wording did the dissenter want instead?"
        ));
        assert!(asks_vote_detail(
            "How did Fisher weigh inflation against growth when he dissented?"
        ));
        assert!(asks_vote_detail(
            "Who dissented in January 2008, and what danger to inflation expectations did he see?"
        ));
        assert!(!asks_vote_detail("Who dissented in March 2012?"));
        // "already" is not "read", "review" not "view".
        assert!(!asks_vote_detail(
            "Who had already dissented before the review in 2019?"
        ));
        assert!(states_preference(
            "Mr. Lacker preferred to omit the guidance."
        ));
        assert!(!states_preference(
            "Voting against the action was Jeffrey M. Lacker."
        ));
    }

    #[test]
    fn whose_requests_were_approved_names_the_requesters() {
        assert!(tells_requesters("in taking this action, the board approved the requests submitted by the boards of directors of the federal reserve banks of boston and new york."));
        assert!(tells_requesters("the federal reserve board approved requests submitted by the boards of directors of the federal reserve banks of new york."));
        assert!(!tells_requesters("in a related action, the board of governors unanimously approved a 25 basis point increase in the discount rate to 3 percent."));
    }

    #[test]
    fn months_are_names_not_words_like_may_or_march_in_lower_case() {
        assert!(names_month("runoff will begin in June"));
        assert!(names_month("by the end of March 2012"));
        assert!(names_month("starting in May"));
        assert!(!names_month("the Committee may act"));
    }
}
