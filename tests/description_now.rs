//! Asked how conditions were described, the statement's sentence that describes them answers
//! before its sentences of what the Committee expects or will do, though those hold more of the
//! question's words: built on a generated statement, with the real index.

mod common;

/// A statement whose forward-looking sentences name the labour market more often than the one
/// describing it.
fn statement() -> String {
    String::from(
        "# FOMC statement, March 18, 2026\n\n\
         Job gains have been strong in recent months, and the unemployment rate has declined \
         substantially. Inflation remains elevated.\n\n\
         With appropriate firming, the Committee expects the labor market to remain strong and \
         labor market conditions to stay tight. The Committee will continue to assess labor \
         market conditions and the labor market outlook. In assessing the appropriate stance, \
         the Committee's assessments will take into account a wide range of information, \
         including readings on labor market conditions and the labor market.\n\n\
         The Committee decided to raise the target range for the federal funds rate to 1/4 to \
         1/2 percent.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_conditions_were_described_is_answered_by_the_sentence_describing_them() {
    let a = common::ask_of_document(
        "description-now",
        "2026-03-18_statement.md",
        &statement(),
        "How did the March 2026 statement describe the labor market?",
    )
    .await
    .answer;
    assert!(a.starts_with("Job gains have been strong"), "{a}");
}

/// A statement whose characterisation of inflation is three words long.
fn short_statement() -> String {
    String::from(
        "# FOMC statement, November 4, 2026\n\n\
         Recent indicators suggest that economic activity expanded at a solid pace. Inflation \
         remains elevated.\n\n\
         The Committee remains highly attentive to inflation risks. In determining the extent \
         of additional policy firming, the Committee will take into account inflation and the \
         inflation outlook.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_word_characterisation_answers() {
    let a = common::ask_of_document(
        "description-short",
        "2026-11-04_statement.md",
        &short_statement(),
        "How did the Committee characterize inflation in its statement of November 4, 2026?",
    )
    .await
    .answer;
    assert!(a.contains("Inflation remains elevated"), "{a}");
}

/// A statement that speaks of household spending and business investment in several sentences
/// and of housing in one.
fn several_statement() -> String {
    String::from(
        "# FOMC statement, October 21, 2026\n\n\
         Household spending has advanced a bit more quickly, but growth in business fixed \
         investment has slowed. Household spending and business fixed investment are supported \
         by solid income growth. The housing sector has shown some further signs of \
         improvement.\n\n\
         The Committee expects household spending and business investment to grow at a \
         moderate pace. Business investment and household spending remain sensitive to \
         financial conditions.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_of_several_things_asked_about_is_described() {
    let a = common::ask_of_document(
        "description-several",
        "2026-10-21_statement.md",
        &several_statement(),
        "How did the October 2026 statement characterise household spending, business \
         investment and housing?",
    )
    .await
    .answer;
    assert!(a.contains("housing sector"), "{a}");
    assert!(a.contains("Household spending has advanced"), "{a}");
}

/// A statement that says tighter credit will weigh on the economy and, in the next sentence,
/// how sure it is of that, among sentences of figures.
fn sureness_statement() -> String {
    String::from(
        "# FOMC statement, July 29, 2026\n\n\
         Recent indicators suggest that economic activity has been expanding at a moderate \
         pace. Job gains have been robust in recent months, and the unemployment rate has \
         remained low. Inflation remains elevated.\n\n\
         The U.S. banking system is sound and resilient. Tighter credit conditions for \
         households and businesses are likely to weigh on economic activity, hiring, and \
         inflation. The extent of these effects remains uncertain. The Committee remains highly \
         attentive to inflation risks.\n\n\
         The Committee seeks to achieve maximum employment and inflation at the rate of 2 \
         percent over the longer run. In support of these goals, the Committee decided to raise \
         the target range for the federal funds rate to 5-1/4 to 5-1/2 percent. The Committee \
         will continue to assess additional information and its implications for monetary \
         policy.\n",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_sure_the_committee_was_is_answered_by_its_judgement() {
    let a = common::ask_of_document(
        "description-sureness",
        "2026-07-29_statement.md",
        &sureness_statement(),
        "In its July 2026 statement, how sure was the Committee about the size of the effects \
         of tighter credit conditions on the economy?",
    )
    .await
    .answer;
    assert!(a.contains("remains uncertain"), "{a}");
}

/// A statement where the Committee's watch on inflation and its measures of compensation name
/// inflation as often as the sentence saying how it stands.
fn inflation_statement() -> String {
    "# Federal Reserve issues FOMC statement, June 17, 2026\n\
     \n\
     Information received since the Federal Open Market Committee met in April indicates that the \
     pace of improvement in the labor market has slowed while growth in economic activity appears \
     to have picked up. Although the unemployment rate has declined, job gains have diminished. \
     Growth in household spending has strengthened. Inflation has continued to run below the \
     Committee's 2 percent longer-run objective, partly reflecting earlier declines in energy \
     prices and in prices of non-energy imports. Market-based measures of inflation compensation \
     declined; most survey-based measures of longer-term inflation expectations are little \
     changed, on balance, in recent months.\n\
     \n\
     Consistent with its statutory mandate, the Committee seeks to foster maximum employment and \
     price stability. The Committee currently expects that, with gradual adjustments in the stance \
     of monetary policy, economic activity will expand at a moderate pace and labor market \
     indicators will strengthen. Inflation is expected to remain low in the near term, in part \
     because of earlier declines in energy prices, but to rise to 2 percent over the medium term. \
     The Committee continues to closely monitor inflation indicators and global economic and \
     financial developments.\n\
     \n\
     Against this backdrop, the Committee decided to maintain the target range for the federal \
     funds rate at 1/4 to 1/2 percent. The stance of monetary policy remains accommodative, \
     thereby supporting further improvement in labor market conditions and a return to 2 percent \
     inflation.\n"
        .to_string()
}

/// Asked how inflation was described, or what the statement on inflation said, the subject is
/// named before the verb; the sentence saying how inflation stands answers first, before the
/// measures of inflation compensation and the Committee's watch on inflation. (Without the
/// rule the first phrasing is answered by the measures of compensation first; the second is
/// answered right on this document even so, and its reading is tested in `asks.rs`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subject_named_before_the_verb_is_described_by_how_it_stands() {
    for (q, name) in [
        (
            "How was inflation described in the June 17, 2026 FOMC statement?",
            "described",
        ),
        (
            "June 2026 FOMC statement on inflation - what did it say?",
            "statement-on",
        ),
    ] {
        let a = common::ask_of_document(
            &format!("description-now-{name}"),
            "2026-06-17_statement.md",
            &inflation_statement(),
            q,
        )
        .await
        .answer;
        assert!(
            a.starts_with("Inflation has continued to run below"),
            "{q}: {a}"
        );
    }
}
