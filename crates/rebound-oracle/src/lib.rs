#![doc = include_str!("../README.md")]

pub mod command;
mod wrappers;

pub use command::plainly_safe;
