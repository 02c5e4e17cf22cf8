//! Company → Memory settings: the daily budget memory's model calls work within, what today cost,
//! and the nights the budget ran out. Human admins only, acting as themselves.

use super::{cents, NightlyStore, DEFAULT_BUDGET_CENTS, MAX_BUDGET_CENTS};
use crate::clock::Clock;
use crate::kernel::Actor;
use crate::lessons::LessonError;
use crate::org::Person;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What the settings page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorySettingsView {
    pub budget_cents: u32,
    /// No admin changed it: the default holds.
    pub is_default: bool,
    /// "Spent today (2026-12-02, in the company's zone): 0.12 of 200 cents."
    pub spent_line: String,
    /// The notices of the nights the budget ran out, newest first.
    pub stops: Vec<String>,
    /// The locale numbers, amounts and dates read in ("en-IN").
    pub locale: String,
    /// What that looks like: "₹18,50,000 · 1,23,45,678 · 5 Dec 2026".
    pub locale_sample: String,
}

/// A sample of each format in `locale`, for the page to show what a choice means.
pub fn locale_sample(locale: &crate::locale::Locale) -> String {
    use crate::locale::FieldFormat;
    [
        FieldFormat::Amount { currency: "INR".into() }.show("1850000", locale),
        FieldFormat::Amount { currency: "USD".into() }.show("48000.50", locale),
        FieldFormat::Number.show("12345678", locale),
        FieldFormat::Date.show("2026-12-05", locale),
    ]
    .join(" · ")
}

const ADMINS_ONLY: &str = "Only an admin changes memory settings";

/// Thousandths of a cent as cents, to two places: "0.12".
pub fn cents_words(millicents: u64) -> String {
    let hundredths = millicents.div_ceil(10);
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// The budget as an admin typed it: a whole number of cents.
pub fn parse_budget(text: &str) -> Result<u32, LessonError> {
    let refused =
        || LessonError::Invalid(format!("The daily budget is a whole number of cents, from 0 to {MAX_BUDGET_CENTS}"));
    let cents: u32 = text.trim().parse().map_err(|_| refused())?;
    if cents > MAX_BUDGET_CENTS {
        return Err(refused());
    }
    Ok(cents)
}

crate::port!(
    /// What the memory settings read and write: the budget and the spend the nightly job keeps,
    /// and the company's zone its days are dated in.
    SettingsPorts: NightlyStore, crate::org::store::OrgStore
);

/// Company → Memory settings, for human admins.
#[derive(Clone)]
pub struct MemorySettings {
    store: Arc<dyn SettingsPorts>,
    clock: Arc<dyn Clock>,
}

impl MemorySettings {
    pub fn new(store: Arc<dyn SettingsPorts>, clock: Arc<dyn Clock>) -> Self {
        Self { store, clock }
    }

    fn admin(me: &Person) -> Result<(), LessonError> {
        if me.is_admin && me.left_at.is_none() {
            Ok(())
        } else {
            Err(LessonError::NotAllowed(ADMINS_ONLY.into()))
        }
    }

    pub async fn settings(&self, me: &Person) -> Result<MemorySettingsView, LessonError> {
        Self::admin(me)?;
        let set = self.store.memory_budget().await?;
        let budget_cents = set.unwrap_or(DEFAULT_BUDGET_CENTS);
        let company = self.store.company().await?;
        let zone = company.as_ref().map(|c| c.time_zone.as_str().parse().unwrap_or(chrono_tz::UTC));
        let locale = company.map(|c| c.locale).unwrap_or_default();
        let today = match zone {
            Some(zone) => self.clock.now().with_timezone(&zone).date_naive(),
            None => self.clock.now().date_naive(),
        }
        .to_string();
        let spent = self.store.spent_on(&today).await?;
        let spent_line =
            format!("Spent today ({today}, in the company's zone): {} of {budget_cents} cents.", cents_words(spent));
        let stops = self.store.budget_stops(10).await?.iter().map(|s| s.notice()).collect();
        Ok(MemorySettingsView {
            budget_cents,
            is_default: set.is_none(),
            spent_line,
            stops,
            locale_sample: locale_sample(&locale.locale()),
            locale: locale.as_str().to_string(),
        })
    }

    /// Sets the locale card values read in for everyone; audited. Stored values do not change.
    /// Returns what the page says.
    pub async fn set_locale(&self, me: &Person, text: &str) -> Result<String, LessonError> {
        Self::admin(me)?;
        let locale = crate::org::LocaleName::parse(text).map_err(|e| LessonError::Invalid(e.to_string()))?;
        self.store.set_company_locale(&locale, Actor { person: Some(me.id), at: self.clock.now() }).await?;
        Ok(format!("Saved. Values now read as in {}: {}.", locale.as_str(), locale_sample(&locale.locale())))
    }

    /// Sets the daily budget; audited. Returns what the page says.
    pub async fn set_budget(&self, me: &Person, text: &str) -> Result<String, LessonError> {
        Self::admin(me)?;
        let budget = parse_budget(text)?;
        self.store.set_memory_budget(budget, Actor { person: Some(me.id), at: self.clock.now() }).await?;
        Ok(format!("Saved. Memory's model calls may spend {} a day.", cents(budget)))
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod fake_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_a_whole_number_of_cents_within_bounds() {
        assert_eq!(parse_budget(" 200 ").unwrap(), 200);
        assert_eq!(parse_budget("0").unwrap(), 0);
        for bad in ["", "2.5", "-1", "lots", "100001"] {
            assert_eq!(
                parse_budget(bad).unwrap_err().to_string(),
                "The daily budget is a whole number of cents, from 0 to 100000",
                "{bad:?}"
            );
        }
    }

    #[test]
    fn spend_reads_in_cents_rounded_up() {
        assert_eq!(cents_words(0), "0.00");
        assert_eq!(cents_words(1), "0.01");
        assert_eq!(cents_words(1_750), "1.75");
        assert_eq!(cents_words(200_000), "200.00");
    }
}
