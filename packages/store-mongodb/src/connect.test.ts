import { databaseOf, hostsOf } from './connect.js';

describe('MongoDB addresses', () => {
  it.each([
    ['mongodb://127.0.0.1:27017', null],
    ['mongodb://127.0.0.1:27017/', null],
    ['mongodb://user:p%40ss@a:1,b:2/odp_registry?replicaSet=rs0', 'odp_registry'],
    ['mongodb+srv://cluster.example/odp%5Fx?retryWrites=true', 'odp_x'],
    ['mongodb://a:1/?replicaSet=rs0', null],
  ])('%s names the database %s', (url, database) => {
    expect(databaseOf(url)).toBe(database);
  });

  it('names the hosts without the credentials', () => {
    expect(hostsOf('mongodb://user:p%40ss@a:1,b:2/odp_registry?replicaSet=rs0')).toBe('a:1,b:2');
  });
});
