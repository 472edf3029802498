// bench.mjs --extra wrapper: satori-tokens, cl100k_base (see tokens-extra.mjs).
import { make } from './tokens-extra.mjs';

export const { name, encoding, init, count, encode, reset } = make('cl100k_base');
