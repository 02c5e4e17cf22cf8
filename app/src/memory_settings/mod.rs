//! Company → Memory settings, for human admins: memory's daily budget, today's spend and the
//! nights the budget ran out, and the locale card values read in.

pub mod load_memory_settings;
pub mod memory_settings_page;
pub mod set_company_locale;
pub mod set_memory_budget;
