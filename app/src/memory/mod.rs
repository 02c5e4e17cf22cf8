//! Profile → Memory: the person's own cards (pin, forget, refresh, pin back), What I've learned
//! (keep, correct, forget a lesson) and Prepare my day.

pub mod correct_lesson;
pub mod decide_proposal;
pub mod forget_card;
pub mod forget_lesson;
pub mod keep_lesson;
pub mod load_my_memory;
pub mod my_memory_page;
pub mod pin_back;
pub mod pin_card;
pub mod refresh_card;
pub mod save_prepare;
pub mod set_own_key;
