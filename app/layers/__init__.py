"""The viewport's layers: each draws one kind of item as one (or a few) graphics items fed whole arrays."""
