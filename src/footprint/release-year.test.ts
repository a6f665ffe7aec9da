import { describe, expect, it } from 'vitest';
import { getCategory } from './engine/categories.ts';
import { chooseReleaseYear, engineYear } from './release-year.ts';

describe('engineYear: the year the engine takes for a release year', () => {
  const server = getCategory('server')!;
  const laptop = getCategory('laptop')!;

  it("moves a server's stated, catalogue or model-number year to its sheets' date, not a purchase year", () => {
    expect(server.sheet_year_lag).toBe(2);
    expect(engineYear(server, chooseReleaseYear({ stated: 2017 }))).toBe(2019);
    expect(engineYear(server, chooseReleaseYear({ catalogue: 2014 }))).toBe(2016);
    expect(engineYear(getCategory('tower_server')!, chooseReleaseYear({ modelNumber: 2018 }))).toBe(2020);
    expect(engineYear(server, chooseReleaseYear({ purchaseDate: '2021-03-15' }))).toBe(2021);
  });

  it('keeps the year of a category whose sheets are dated at release, and nothing without a year', () => {
    expect(engineYear(laptop, chooseReleaseYear({ catalogue: 2020 }))).toBe(2020);
    expect(engineYear(server, chooseReleaseYear({}))).toBeUndefined();
  });
});
