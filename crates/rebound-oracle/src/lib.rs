#![doc = include_str!("../README.md")]

pub mod command;

pub use command::plainly_safe;
