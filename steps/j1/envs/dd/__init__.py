"""DD — Defence Drafting (J1 level II): the lawyer interviews the defendant and drafts the defence."""
