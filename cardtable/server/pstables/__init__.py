"""Poker Squares tables: 2-8 people, each placing the same cards on a grid of their own, live
(docs/ps-tables.md). Its limits and timings are the online tables' (`OnlineSettings`)."""
