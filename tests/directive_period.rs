//! Asked what was to be done during one month, the directive's sentence for that month's period
//! answers, not its near twin for the months after it ("Effective in October, …"): built on
//! generated minutes, with the real index.

mod common;

/// Minutes whose directive gives the roll-over cap for the meeting's month and, first and in
/// almost the same words, the cap from the next month on.
fn minutes() -> String {
    String::from(
        "# Minutes of the Federal Open Market Committee, September 23, 2026\n\n\
         Participants discussed the reduction of the Federal Reserve's securities holdings.\n\n\
         Effective in October, the Committee directs the Desk to roll over at auction the amount \
         of principal payments from the Federal Reserve's holdings of Treasury securities \
         maturing during each calendar month that exceeds $30 billion. The Committee directs \
         the Desk to continue rolling over at auction the amount of principal payments from the \
         Federal Reserve's holdings of Treasury securities maturing during September that \
         exceeds $24 billion.\n\n\
         It was agreed that the next meeting of the Committee would be held on November 4, \
         2026.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_a_month_is_answered_by_that_months_directive() {
    let a = common::ask_of_document(
        "directive-period",
        "2026-09-23_minutes.md",
        &minutes(),
        "Above what amount were Treasury principal payments maturing during September to be \
         rolled over, per the September 2026 directive?",
    )
    .await
    .answer;
    assert!(a.contains("$24 billion"), "{a}");
    // The next months' cap is no answer to what was to happen during September.
    assert!(
        a.find("$24 billion") < a.find("$30 billion").or(Some(usize::MAX)),
        "{a}"
    );
}

/// Minutes whose directive gives, first and in more of a question's words, the cap from
/// September on, then the cap for the two months before it.
fn summer_minutes() -> String {
    String::from(
        "# Minutes of the Federal Open Market Committee, July 29, 2026\n\n\
         Participants discussed the reduction of the Federal Reserve's securities holdings.\n\n\
         Starting in the calendar month of September, reinvest into agency MBS the amount of \
         principal payments from the Federal Reserve's holdings of agency debt and agency MBS \
         received in each calendar month that exceeds a monthly cap of $35 billion, with agency \
         principal payments above the monthly cap reinvested in agency MBS. Reinvest into \
         agency mortgage-backed securities (MBS) the amount of principal payments from the \
         Federal Reserve's holdings of agency debt and agency MBS received in the calendar \
         months of July and August that exceeds a cap of $17.5 billion per month.\n\n\
         It was agreed that the next meeting of the Committee would be held on September 16, \
         2026.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_two_months_is_answered_by_those_months_directive() {
    let a = common::ask_of_document(
        "directive-two-months",
        "2026-07-29_minutes.md",
        &summer_minutes(),
        "Per the July 2026 directive, above what monthly cap were agency principal payments \
         received in July and August to be reinvested in agency MBS?",
    )
    .await
    .answer;
    assert!(a.contains("$17.5 billion"), "{a}");
    // The cap from September on is no answer to what was to happen in July and August.
    assert!(
        a.find("$17.5 billion") < a.find("$35 billion").or(Some(usize::MAX)),
        "{a}"
    );
}
