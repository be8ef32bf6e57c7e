//! The x86-64 instruction sets this binary's llama.cpp was compiled for,
//! and whether the CPU it runs on has them.
//!
//! llama.cpp is built once, with a fixed set (llama-cpp-sys-2 passes every
//! `GGML_*` variable of the build's environment to its CMake build;
//! `scripts/cpu-features` prints the ones for the building CPU's AVX-512
//! and AVX-VNNI). A binary that uses an instruction its CPU lacks stops
//! with an illegal instruction in the middle of a model call; knowing the
//! set, opening the model refuses with a clear error instead, and `rebound
//! model info` shows it. (One binary with every variant, chosen at run
//! time, is llama.cpp's `GGML_CPU_ALL_VARIANTS` with dynamic backends: 14
//! builds of its CPU code on x86-64, beyond this project's CI time on two
//! cores.)

/// The sets on x86-64: ggml's name, the `GGML_*` variable's value when
/// this crate was compiled, and whether ggml builds the set when the
/// variable is unset. The first six are ggml's baseline when
/// `GGML_NATIVE` is off (as llama-cpp-sys-2 builds it unless the target
/// CPU is `native`).
const OPTIONS: &[(&str, Option<&str>, bool)] = &[
    ("SSE4.2", option_env!("GGML_SSE42"), true),
    ("AVX", option_env!("GGML_AVX"), true),
    ("AVX2", option_env!("GGML_AVX2"), true),
    ("BMI2", option_env!("GGML_BMI2"), true),
    ("FMA", option_env!("GGML_FMA"), true),
    ("F16C", option_env!("GGML_F16C"), true),
    ("AVX512", option_env!("GGML_AVX512"), false),
    ("AVX512_VBMI", option_env!("GGML_AVX512_VBMI"), false),
    ("AVX512_VNNI", option_env!("GGML_AVX512_VNNI"), false),
    ("AVX512_BF16", option_env!("GGML_AVX512_BF16"), false),
    ("AVX_VNNI", option_env!("GGML_AVX_VNNI"), false),
];

/// Whether a CMake option's value turns it on.
fn is_on(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_uppercase().as_str(),
        "ON" | "1" | "TRUE" | "YES" | "Y"
    )
}

/// The instruction sets llama.cpp was built for, in [`OPTIONS`] order
/// (none off x86-64, where these options do not apply).
pub fn built_for() -> Vec<&'static str> {
    if !cfg!(target_arch = "x86_64") {
        return Vec::new();
    }
    OPTIONS
        .iter()
        .filter(|(_, value, on_by_default)| value.map_or(*on_by_default, is_on))
        .map(|(name, _, _)| *name)
        .collect()
}

/// Whether this CPU has the instruction set `name` (as llama.cpp's CMake
/// option means it: `AVX512` is AVX-512 F, CD, VL, DQ and BW). Always
/// true off x86-64 and for names it does not know.
pub fn cpu_has(name: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        match name {
            "SSE4.2" => has!("sse4.2"),
            "AVX" => has!("avx"),
            "AVX2" => has!("avx2"),
            "BMI2" => has!("bmi2"),
            "FMA" => has!("fma"),
            "F16C" => has!("f16c"),
            "AVX512" => {
                has!("avx512f")
                    && has!("avx512cd")
                    && has!("avx512vl")
                    && has!("avx512dq")
                    && has!("avx512bw")
            }
            "AVX512_VBMI" => has!("avx512vbmi"),
            "AVX512_VNNI" => has!("avx512vnni"),
            "AVX512_BF16" => has!("avx512bf16"),
            "AVX_VNNI" => has!("avxvnni"),
            _ => true,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = name;
        true
    }
}

/// The sets llama.cpp was built for that this CPU lacks.
pub fn missing() -> Vec<&'static str> {
    missing_from(&built_for(), cpu_has)
}

/// Of `built`, the sets `has` says are absent.
fn missing_from(built: &[&'static str], has: impl Fn(&str) -> bool) -> Vec<&'static str> {
    built.iter().copied().filter(|name| !has(name)).collect()
}

/// The error of opening a model with `missing` sets absent, or `None`.
pub(crate) fn unusable(missing: &[&str]) -> Option<String> {
    (!missing.is_empty()).then(|| {
        format!(
            "this rebound's llama.cpp was built for {}, which this CPU lacks (it would stop with an illegal instruction); build it again on this machine, or with REBOUND_PORTABLE_BUILD=1 for any x86-64 CPU with AVX2 (scripts/setup)",
            missing.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_is_built_unless_turned_off_and_the_rest_only_when_on() {
        assert!(is_on("ON") && is_on("on") && is_on("1") && is_on(" true "));
        assert!(!is_on("OFF") && !is_on("0") && !is_on(""));
        if cfg!(target_arch = "x86_64") {
            let built = built_for();
            if option_env!("GGML_AVX2").is_none() {
                assert!(built.contains(&"AVX2"), "the baseline: {built:?}");
            }
            if option_env!("GGML_AVX512").is_none() {
                assert!(!built.contains(&"AVX512"), "not unless asked: {built:?}");
            }
        } else {
            assert!(built_for().is_empty());
        }
    }

    #[test]
    fn a_set_the_cpu_lacks_makes_the_model_unusable_with_a_clear_error() {
        let built = ["AVX2", "AVX512", "AVX512_VNNI"];
        let without_avx512 = |name: &str| !name.starts_with("AVX512");
        let missing = missing_from(&built, without_avx512);
        assert_eq!(missing, vec!["AVX512", "AVX512_VNNI"]);
        let error = unusable(&missing).unwrap_or_default();
        assert!(error.contains("built for AVX512, AVX512_VNNI, which this CPU lacks"));
        assert!(error.contains("REBOUND_PORTABLE_BUILD=1"));
        assert_eq!(missing_from(&built, |_| true), Vec::<&str>::new());
        assert_eq!(unusable(&[]), None);
    }

    #[test]
    fn this_cpu_runs_this_build() {
        // The tests run on the machine that built them.
        assert_eq!(missing(), Vec::<&str>::new());
    }
}
