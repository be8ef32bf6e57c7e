#![doc = include_str!("../README.md")]

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Fields, Ident, Path, Type};

/// Most fields a state may have (one bit each in `FieldSet`).
const MAX_FIELDS: usize = 64;

/// The update's hidden field listing the fields it overwrites (also its
/// JSON key, present only when some field is overwritten).
const OVERWRITTEN: &str = "__overwritten";

enum Rule {
    Replace,
    Append,
    Custom(Path),
}

struct Field {
    ident: Ident,
    ty: Type,
    rule: Rule,
}

/// Derives `rebound_graph::State`; see the trait's documentation.
#[proc_macro_derive(State, attributes(state))]
pub fn derive_state(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

fn parse_fields(input: &DeriveInput) -> syn::Result<Vec<Field>> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(State)] needs a struct with named fields",
        ));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(State)] needs a struct with named fields",
        ));
    };
    if named.named.len() > MAX_FIELDS {
        return Err(syn::Error::new_spanned(
            &input.ident,
            format!("a State has at most {MAX_FIELDS} fields; group some into a nested struct"),
        ));
    }
    let mut fields = Vec::with_capacity(named.named.len());
    for field in &named.named {
        let Some(ident) = field.ident.clone() else {
            return Err(syn::Error::new_spanned(field, "unnamed field"));
        };
        if ident == OVERWRITTEN {
            return Err(syn::Error::new_spanned(
                field,
                format!("`{OVERWRITTEN}` is reserved by #[derive(State)]"),
            ));
        }
        let mut rule = Rule::Replace;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("state")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("append") {
                    rule = Rule::Append;
                    Ok(())
                } else if meta.path.is_ident("replace") {
                    rule = Rule::Replace;
                    Ok(())
                } else if meta.path.is_ident("merge") {
                    let path: Path = meta.value()?.parse()?;
                    rule = Rule::Custom(path);
                    Ok(())
                } else {
                    Err(meta.error(
                        "unknown state attribute: expected `append`, `replace` or `merge = function`",
                    ))
                }
            })?;
        }
        fields.push(Field {
            ident,
            ty: field.ty.clone(),
            rule,
        });
    }
    Ok(fields)
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(State)] does not support generic structs",
        ));
    }
    let fields = parse_fields(input)?;
    let name = &input.ident;
    let vis = &input.vis;
    let update = format_ident!("{}Update", name);
    let krate = quote!(::rebound_graph);

    let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
    let update_fields = update_fields(&fields);
    let setters = setters(&fields);
    let applies = applies(&fields);
    let rules = fields.iter().map(|f| match f.rule {
        Rule::Replace => quote!(#krate::MergeRule::Replace),
        Rule::Append => quote!(#krate::MergeRule::Append),
        Rule::Custom(_) => quote!(#krate::MergeRule::Custom),
    });
    let written = fields.iter().enumerate().map(|(i, f)| {
        let ident = &f.ident;
        quote! {
            if update.#ident.is_some() {
                set.insert(#i);
            }
        }
    });
    let update_doc = format!(
        "A partial update of [`{name}`]: each field that is set is written with its merge rule."
    );
    let serde_path = format!("{krate}::__private::serde").replace(' ', "");

    Ok(quote! {
        #[doc = #update_doc]
        #[derive(Default, Debug, Clone, #krate::__private::serde::Serialize, #krate::__private::serde::Deserialize)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        #vis struct #update {
            #(#update_fields,)*
            /// The fields written with `overwrite_<field>`: not part of the API.
            #[doc(hidden)]
            #[serde(default, skip_serializing_if = "::rebound_graph::FieldSet::is_empty_ref")]
            pub __overwritten: #krate::FieldSet,
        }

        impl #update {
            #(#setters)*
        }

        impl #krate::State for #name {
            type Update = #update;
            const FIELDS: &'static [&'static str] = &[#(#names),*];
            const MERGE_RULES: &'static [#krate::MergeRule] = &[#(#rules),*];

            fn written(update: &Self::Update) -> #krate::FieldSet {
                let mut set = #krate::FieldSet::EMPTY;
                #(#written)*
                set
            }

            fn apply(&mut self, update: Self::Update) -> #krate::FieldSet {
                let mut set = #krate::FieldSet::EMPTY;
                #(#applies)*
                set
            }

            fn overwritten(update: &Self::Update) -> #krate::FieldSet {
                update.__overwritten
            }
        }
    })
}

/// The update struct's fields: one optional value per state field.
fn update_fields(fields: &[Field]) -> Vec<TokenStream2> {
    // A present value, even `null` for an `Option` field, is a write.
    let some_path = "::rebound_graph::__private::deserialize_some";
    fields
        .iter()
        .map(|f| {
            let ident = &f.ident;
            let ty = &f.ty;
            let doc = format!("A write to `{ident}`, when set.");
            quote! {
                #[doc = #doc]
                #[serde(
                    default,
                    skip_serializing_if = "::core::option::Option::is_none",
                    deserialize_with = #some_path
                )]
                pub #ident: ::core::option::Option<#ty>
            }
        })
        .collect()
}

/// The update's builder methods: `field(value)` and `overwrite_field(value)`.
fn setters(fields: &[Field]) -> Vec<TokenStream2> {
    fields
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let ident = &f.ident;
            let ty = &f.ty;
            let doc = match f.rule {
                Rule::Append => format!("Appends to `{ident}`."),
                Rule::Custom(_) => format!("Merges a value into `{ident}`."),
                Rule::Replace => format!("Sets `{ident}`."),
            };
            let overwrite = format_ident!("overwrite_{}", ident);
            let overwrite_doc = format!(
                "Sets `{ident}`, replacing its value whatever its merge rule (an overwrite)."
            );
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #ident(mut self, value: #ty) -> Self {
                    self.#ident = ::core::option::Option::Some(value);
                    self
                }

                #[doc = #overwrite_doc]
                #[must_use]
                pub fn #overwrite(mut self, value: #ty) -> Self {
                    self.#ident = ::core::option::Option::Some(value);
                    self.__overwritten.insert(#index);
                    self
                }
            }
        })
        .collect()
}

/// `State::apply`'s statements: each set field merged by its rule.
fn applies(fields: &[Field]) -> Vec<TokenStream2> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let ident = &f.ident;
            let merge = match &f.rule {
                Rule::Replace => quote!(self.#ident = value;),
                Rule::Append => quote! {
                    if update.__overwritten.contains(#i) {
                        self.#ident = value;
                    } else {
                        ::core::iter::Extend::extend(&mut self.#ident, value);
                    }
                },
                Rule::Custom(path) => quote! {
                    if update.__overwritten.contains(#i) {
                        self.#ident = value;
                    } else {
                        #path(&mut self.#ident, value);
                    }
                },
            };
            quote! {
                if let ::core::option::Option::Some(value) = update.#ident {
                    #merge
                    set.insert(#i);
                }
            }
        })
        .collect()
}
