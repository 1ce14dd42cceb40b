//! Asked how a vote went (its count, who backed the action, how it was taken), the sentence that
//! says so answers, even when it only introduces the statement ("… by a 12 – 0 vote:") or is
//! the roll call of those voting for: built on a generated statement, with the real index.

mod common;

/// A statement of one meeting: the vote introducing it, the decision and outlook, then the
/// roll call of those voting for it, taken by notation.
fn statement() -> String {
    "# Federal Reserve issues FOMC statement, June 17, 2026\n\n\
     The Federal Open Market Committee approved the following statement for release by a \
     12 – 0 vote:\n\n\
     Economic activity has been expanding at a solid pace. Job gains have remained low, and \
     the unemployment rate has been little changed. Inflation remains somewhat elevated. The \
     Committee decided to maintain the target range for the federal funds rate at 3-1/2 to \
     3-3/4 percent. The Committee will continue reducing its holdings of Treasury securities.\n\n\
     Voting (by notation) for the monetary policy action were Jerome H. Powell, Chair; John C. \
     Williams, Vice Chair; Michael S. Barr; Lisa D. Cook; Beth M. Hammack; and Anna Paulson.\n"
        .to_string()
}

/// Minutes in the older style: the directive's vote, then the roll call of those voting for it
/// as "Votes for this action: …".
fn older_minutes() -> String {
    "# Minutes of the Federal Open Market Committee, March 18, 2003\n\n\
     Most members believed that the major uncertainties made it impossible to assign \
     reasonable probabilities to alternative outcomes. At the conclusion of the discussion, \
     the Committee voted to keep its target for the federal funds rate at 1-1/4 percent. \
     Votes for this action: Messrs. Greenspan, McDonough, Bernanke, Ms. Bies, Messrs. \
     Broaddus, Ferguson, Gramlich, Guynn, Kohn, Moskow, Olson, and Parry. Votes against this \
     action: None.\n\n\
     It was agreed that the next meeting of the Committee would be held on Tuesday, May 6, \
     2003.\n"
        .to_string()
}

async fn answer(question: &str, name: &str) -> String {
    answer_over("2026-06-17_statement.md", &statement(), question, name).await
}

async fn answer_over(file: &str, text: &str, question: &str, name: &str) -> String {
    common::ask_of_document(&format!("vote-tally-{name}"), file, text, question)
        .await
        .answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vote_count_is_answered_by_the_vote_that_introduces_the_statement() {
    let a = answer(
        "What was the vote count on the FOMC statement of June 17, 2026?",
        "count",
    )
    .await;
    // The sentence ends in a colon in the document; the answer gives it as a sentence.
    assert!(a.contains("by a 12 – 0 vote"), "{a}");
    assert!(!a.contains("vote:"), "{a}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_backed_the_action_is_answered_by_the_roll_call() {
    let a = answer(
        "Which members backed the policy action at the June 17, 2026 meeting?",
        "backed",
    )
    .await;
    assert!(a.contains("Hammack") && a.contains("Paulson"), "{a}");
}

/// Asked to list those who supported it, or who cast votes in favour, the question asks the
/// same roll call, though "who" does not open it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_the_supporters_or_votes_in_favour_is_answered_by_the_roll_call() {
    for (q, name) in [
        (
            "List the members who supported the policy action at the June 17, 2026 meeting.",
            "list",
        ),
        (
            "Which Committee members cast votes in favor of the policy action in June 2026?",
            "cast",
        ),
    ] {
        let a = answer(q, name).await;
        assert!(a.starts_with("Voting (by notation) for"), "{q}: {a}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_the_vote_was_taken_is_answered_by_the_roll_call_taken_by_notation() {
    let a = answer(
        "How was the vote on the FOMC's policy action of June 17, 2026 taken?",
        "notation",
    )
    .await;
    assert!(a.contains("(by notation)"), "{a}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_older_minutes_roll_call_answers_who_voted_for() {
    let a = answer_over(
        "2003-03-18_minutes.md",
        &older_minutes(),
        "Which policymakers backed the action at the March 2003 meeting?",
        "older",
    )
    .await;
    assert!(a.contains("Votes for this action"), "{a}");
    assert!(a.contains("Gramlich") && a.contains("Parry"), "{a}");
}

/// Minutes whose policy discussion gives two members' preference to hold, in the question's
/// words, before the roll call of those voting for the cut.
fn cut_minutes() -> String {
    "# Minutes of the Federal Open Market Committee, October 28, 2026\n\n\
     Two members preferred to maintain the current target range for the federal funds rate at \
     this meeting. These members indicated that the economic outlook remained favorable and \
     that the rate cut was not needed.\n\n\
     At the conclusion of the discussion, the Committee voted to lower the target range for \
     the federal funds rate to 3-1/2 to 3-3/4 percent. Voting for this action: Jerome H. \
     Powell, John C. Williams, Michael S. Barr, Lisa D. Cook, Beth M. Hammack, and Anna \
     Paulson. Voting against this action: Stephen I. Miran and Jeffrey R. Schmid.\n"
        .to_string()
}

/// Minutes whose policy discussion says how many participants favoured holding, among
/// sentences naming the target range and the members' agreement to cut it.
fn hold_minutes() -> String {
    "# Minutes of the Federal Open Market Committee, September 16, 2026\n\n\
     In their consideration of the monetary policy options at this meeting, most participants \
     believed that a reduction of 25 basis points in the target range for the federal funds \
     rate would be appropriate. In light of these developments, most members agreed to lower \
     the target range for the federal funds rate to 3-3/4 to 4 percent at this meeting. Several \
     participants favored maintaining the existing target range for the federal funds rate at \
     this meeting. Many participants also cited the level of inflation expectations as \
     justifying a reduction of 25 basis points in the federal funds rate at this meeting.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_voted_for_is_answered_by_the_roll_call_before_a_minoritys_preference() {
    let a = answer_over(
        "2026-10-28_minutes.md",
        &cut_minutes(),
        "Who voted for the October 2026 rate cut, according to the minutes?",
        "voted-for",
    )
    .await;
    assert!(a.starts_with("Voting for this action"), "{a}");
    assert!(a.contains("Hammack") && a.contains("Paulson"), "{a}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_many_participants_favoured_holding_is_answered_by_their_count() {
    let a = answer_over(
        "2026-09-16_minutes.md",
        &hold_minutes(),
        "Per the minutes of the September 2026 meeting, how many participants favoured keeping \
         the target range where it was?",
        "count-people",
    )
    .await;
    // A count of people is no question about the policy rate, so the decision setting it does
    // not answer first: sentences counting participants do, the holders' among them.
    assert!(!a.starts_with("In light of these developments"), "{a}");
    let first = a.split(" [1]").next().unwrap_or_default().to_lowercase();
    assert!(
        ["several", "many", "most"]
            .iter()
            .any(|n| first.contains(&format!("{n} participants"))),
        "{a}"
    );
    assert!(
        a.contains("Several participants favored maintaining"),
        "{a}"
    );
}
