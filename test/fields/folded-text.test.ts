// Text compared as staff type it, without case or accents: patient search and the desk's names of doctors and services (clinic-api-1.1.md, GET /patients `q`; clinic-api-1.3.md, "Doctors and services").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldForSearch, foldName } from '../../src/fields/folded-text.js';

describe('folded text', () => {
  it('finds Müller as muller or MULLER: case and accents folded, hyphens kept', () => {
    assert.equal(foldForSearch('Müller'), 'muller');
    assert.equal(foldForSearch('MÜLLER'), 'muller');
    assert.equal(foldForSearch('Müller-Lüdenscheidt'), 'muller-ludenscheidt');
    // A precomposed ü and a u with a combining diaeresis are one letter to the reader, and one here.
    assert.equal(foldForSearch('Mu\u0308ller'), foldForSearch('M\u00fcller'));
  });

  it('spells out the letters that do not decompose', () => {
    assert.equal(foldForSearch('Strauß'), 'strauss');
    assert.equal(foldForSearch('Ærø Œuvre Łódź Đorđe Þór Yılmaz'), 'aero oeuvre lodz dorde thor yilmaz');
  });

  it('reads compatibility forms as their letters: a ligature, full-width letters', () => {
    assert.equal(foldForSearch('ﬁona'), 'fiona');
    assert.equal(foldForSearch('Ｍüller'), 'muller');
  });

  it('folds every ASCII character as the whole folding does: only its case changes', () => {
    const wholeFolding = (text: string) =>
      text
        .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .toLowerCase();
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
    for (const character of ascii)
      assert.equal(foldForSearch(character), wholeFolding(character), `U+${character.charCodeAt(0).toString(16)}`);
    assert.equal(foldForSearch(ascii.join('')), wholeFolding(ascii.join('')));
    assert.equal(foldForSearch('Dr. MUSTER-Huber'), 'dr. muster-huber');
  });

  it('folds ASCII text with one character beyond it as a whole: a soft hyphen is left out, an accent dropped', () => {
    assert.equal(foldForSearch('MU\u00adSTER'), 'muster');
    assert.equal(foldForSearch('Muste\u0301r'), 'muster');
  });

  it('leaves out what prints as nothing: a soft hyphen, a zero-width space, a bidi control', () => {
    assert.equal(foldForSearch('Mül\u00adler'), 'muller');
    assert.equal(foldForSearch('Mül\u200bler'), 'muller');
    assert.equal(foldForSearch('\u202eMüller'), 'muller');
  });

  it('makes one name of a name typed with other spaces, commas or case', () => {
    const stored = foldName('Dr. Anna Berger');
    assert.equal(stored, 'dr. anna berger');
    for (const typed of ['dr.  anna BERGER', ' Dr. Anna Berger ', 'Dr.\tAnna\nBerger', 'Dr., Anna, Berger', 'DR. ÄNNA BERGER'])
      assert.equal(foldName(typed), stored, JSON.stringify(typed));
  });

  it('folds a name of nothing but spaces and commas to nothing', () => {
    assert.equal(foldName(''), '');
    assert.equal(foldName(' , '), '');
  });
});
