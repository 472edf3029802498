// bench.mjs --extra wrapper: satori-tokens, o200k_base (see tokens-extra.mjs).
import { make } from './tokens-extra.mjs';

export const { name, encoding, init, count, encode, reset } = make('o200k_base');
