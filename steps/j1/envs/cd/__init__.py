"""CD — Complaint Drafting (J1 level II): the lawyer interviews the plaintiff and drafts the complaint."""
