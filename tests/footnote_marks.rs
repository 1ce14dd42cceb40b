//! The minutes put a footnote's number straight after a full stop ("… effective June 16,
//! 2022.5 It was agreed …"): the sentence ends at the full stop and the number is no part of
//! any answer. Built on generated minutes, with the real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, June 14-15, 2026\n\n\
     Members agreed that the Committee should raise the target range for the federal funds rate \
     to 1-1/2 to 1-3/4 percent. The Board of Governors of the Federal Reserve System voted \
     unanimously to approve a 3/4 percentage point increase in the primary credit rate to 1.75 \
     percent, effective June 16, 2026.5 It was agreed that the next meeting of the Committee \
     would be held on Tuesday-Wednesday, July 26-27, 2026.\n\n\
     Participants noted that credit card payments remained high.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_footnote_number_after_a_full_stop_is_left_out_of_the_answer() {
    let a = common::ask_of_document(
        "footnote-marks",
        "2026-06-15_minutes.md",
        &minutes(),
        "By how much did the Board raise the primary credit rate in June 2026?",
    )
    .await
    .answer;
    assert!(a.contains("effective June 16, 2026 [1]."), "{a}");
    assert!(!a.contains("2026.5"), "{a}");
}
