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
