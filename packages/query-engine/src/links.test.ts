import { cursorLinks, pageLinks } from './links.js';

const path = '/data/t1/companies';
const excelPath = '/data/t1/excel/companies';

describe('pageLinks', () => {
  it.each<[string, { page: number; hasNext: boolean; excel: boolean }, string[]]>([
    ['first page without a further row', { page: 0, hasNext: false, excel: true }, ['self', 'excel']],
    ['first page with a further row', { page: 0, hasNext: true, excel: true }, ['self', 'next', 'excel']],
    ['a later page', { page: 2, hasNext: true, excel: true }, ['self', 'first', 'prev', 'next', 'excel']],
    ['the last page of a system class', { page: 1, hasNext: false, excel: false }, ['self', 'first', 'prev']],
  ])('%s', (_name, { page, hasNext, excel }, keys) => {
    const links = pageLinks({
      path,
      ...(excel ? { excelPath } : {}),
      params: new URLSearchParams(`page=${page}`),
      page,
      size: 20,
      hasNext,
    });
    expect(Object.keys(links)).toEqual(keys);
  });

  it('keeps filters, sort and size in every link and moves only the page', () => {
    const links = pageLinks({
      path,
      excelPath,
      params: new URLSearchParams('legalName_startswith=Ac&sort=revenue,desc&page=1&size=5'),
      page: 1,
      size: 5,
      hasNext: true,
    });
    const query = (href: string | undefined) =>
      Object.fromEntries(new URL(href ?? '', 'http://x').searchParams);
    const kept = { legalName_startswith: 'Ac', sort: 'revenue,desc', size: '5' };
    expect(query(links.self.href)).toEqual({ ...kept, page: '1' });
    expect(query(links.first?.href)).toEqual({ ...kept, page: '0' });
    expect(query(links.prev?.href)).toEqual({ ...kept, page: '0' });
    expect(query(links.next?.href)).toEqual({ ...kept, page: '2' });
    expect(links.excel?.href).toBe(`${excelPath}?legalName_startswith=Ac&sort=revenue%2Cdesc`);
    expect(links.next?.href.startsWith(`${path}?`)).toBe(true);
  });

  it('carries the clamped size rather than the requested one', () => {
    const links = pageLinks({
      path,
      params: new URLSearchParams('size=1000000'),
      page: 0,
      size: 1000,
      hasNext: true,
    });
    expect(new URL(links.next?.href ?? '', 'http://x').searchParams.get('size')).toBe('1000');
  });

  const query = (href: string | undefined) =>
    Object.fromEntries(new URL(href ?? '', 'http://x').searchParams);

  it('follows a page shortened by its byte budget by position, right after its last row', () => {
    const links = pageLinks({
      path,
      params: new URLSearchParams('page=2&size=10&sort=legalName'),
      page: 2,
      size: 10,
      hasNext: true,
      returned: 4,
    });
    expect(query(links.self.href)).toEqual({ sort: 'legalName', page: '2', size: '10' });
    expect(query(links.prev?.href)).toEqual({ sort: 'legalName', page: '1', size: '10' });
    expect(query(links.next?.href)).toEqual({ sort: 'legalName', _offset: '24', size: '10' });
  });

  it('links a page requested by position by position', () => {
    const links = pageLinks({
      path,
      params: new URLSearchParams('_offset=24&page=7&size=10'),
      page: 7,
      size: 10,
      offset: 24,
      hasNext: true,
      returned: 10,
    });
    expect(query(links.self.href)).toEqual({ _offset: '24', size: '10' });
    expect(query(links.first?.href)).toEqual({ page: '0', size: '10' });
    expect(query(links.prev?.href)).toEqual({ _offset: '14', size: '10' });
    expect(query(links.next?.href)).toEqual({ _offset: '34', size: '10' });
  });
});

describe('pageLinks with keyset cursors', () => {
  const query = (href: string | undefined) =>
    Object.fromEntries(new URL(href ?? '', 'http://x').searchParams);

  it('adds the cursor of the last row to next, beside the page number, and keeps the request cursor in self', () => {
    const links = pageLinks({
      path,
      excelPath,
      params: new URLSearchParams('sort=legalName&page=1&size=5&after=abc'),
      page: 1,
      size: 5,
      hasNext: true,
      after: 'abc',
      nextAfter: 'def',
    });
    expect(query(links.self.href)).toEqual({ sort: 'legalName', page: '1', size: '5', after: 'abc' });
    expect(query(links.first?.href)).toEqual({ sort: 'legalName', page: '0', size: '5' });
    expect(query(links.prev?.href)).toEqual({ sort: 'legalName', page: '0', size: '5' });
    expect(query(links.next?.href)).toEqual({ sort: 'legalName', page: '2', size: '5', after: 'def' });
    expect(links.excel?.href).toBe(`${excelPath}?sort=legalName`);
  });

  it('adds it beside the position of a page shortened by its byte budget', () => {
    const links = pageLinks({
      path,
      params: new URLSearchParams('size=10'),
      page: 0,
      size: 10,
      hasNext: true,
      returned: 3,
      nextAfter: 'def',
    });
    expect(query(links.next?.href)).toEqual({ _offset: '3', size: '10', after: 'def' });
  });
});

describe('cursorLinks', () => {
  it('has self and next with the cursor, and no excel (the export refuses q)', () => {
    const links = cursorLinks({
      path,
      params: new URLSearchParams('q=ac&cursor=abc&size=5'),
      size: 5,
      next: 'def',
    });
    expect(links).toEqual({
      self: { href: `${path}?q=ac&cursor=abc&size=5` },
      next: { href: `${path}?q=ac&cursor=def&size=5` },
    });
  });

  it('has no next on the last page', () => {
    expect(cursorLinks({ path, params: new URLSearchParams('q=ac'), size: 20, next: null })).toEqual({
      self: { href: `${path}?q=ac&size=20` },
    });
  });
});
